import { deleteViewRoute } from "@/lib/api/saved-views-route";

export const dynamic = "force-dynamic";

/** docs/api.md, "Saved views": POST deletes a view of the signed-in user. */
export const { GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS } = deleteViewRoute;
