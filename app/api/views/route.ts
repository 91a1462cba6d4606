import { viewsRoute } from "@/lib/api/saved-views-route";

export const dynamic = "force-dynamic";

/** docs/api.md, "Saved views": GET lists the signed-in user's views, POST saves a new one. */
export const { GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS } = viewsRoute;
