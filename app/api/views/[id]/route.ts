import { viewRoute } from "@/lib/api/saved-views-route";

export const dynamic = "force-dynamic";

/** docs/api.md, "Saved views": POST renames a view of the signed-in user and/or sets its page's default. */
export const { GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS } = viewRoute;
