import "server-only";
import { createSavedView, listSavedViews, removeSavedView, type SavedViewError, type SavedViewResult, updateSavedView } from "@/lib/data/user-state/saved-views";
import { parseCreateView, parseDeleteView, parseUpdateView } from "@/lib/schemas/saved-views";
import { routeWith, dashboardUser, postedBody } from "./dashboard-route";
import { ApiError } from "./problem";
import { jsonAnswer } from "./route";

/**
 * The saved views' routes (docs/api.md, "Saved views"): for signed-in dashboard users only, each
 * user's own views, checked as every route of lib/api/dashboard-route.ts; then 404 for a view the user does not have
 * (another user's included) and 409 for a name the user already uses or a full list.
 */

const PURPOSE = "saved views";

/** A view id of the path: a positive whole number, else no view of the user's. */
async function viewId(context: { params: Promise<Record<string, string>> }): Promise<number> {
  const raw = (await context.params).id ?? "";
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw notFound(raw);
  return Number(raw);
}

const notFound = (id: string | number) => new ApiError(404, `you have no saved view ${JSON.stringify(String(id))}`);

function refused(error: SavedViewError, id?: number): ApiError {
  if (error.reason === "not_found") return notFound(id ?? "");
  if (error.reason === "limit_reached") {
    return new ApiError(409, `you have ${error.limit} saved views, the most one user may keep; delete one to save another`);
  }
  const message = `you already have a view named ${JSON.stringify(error.name)}`;
  return new ApiError(409, message, { errors: [{ field: "name", message }] });
}

function viewAnswer(result: SavedViewResult, status: 200 | 201, id?: number): Response {
  if (!result.ok) throw refused(result.error, id);
  const answer = jsonAnswer(JSON.stringify({ view: result.view }));
  return new Response(answer.body, { status, headers: answer.headers });
}

/** /api/views: GET lists the user's views, POST saves a new one. */
export const viewsRoute = routeWith({
  GET: async (request) => {
    const { userId } = await dashboardUser(request, PURPOSE);
    return jsonAnswer(JSON.stringify({ views: await listSavedViews(userId) }));
  },
  POST: async (request) => {
    const { user, body } = await postedBody(request, PURPOSE, parseCreateView);
    return viewAnswer(await createSavedView(user.userId, body), 201);
  },
});

/** /api/views/{id}: POST renames the view and/or makes it (or stops it being) its page's default. */
export const viewRoute = routeWith({
  POST: async (request, context) => {
    const { user, body } = await postedBody(request, PURPOSE, parseUpdateView);
    const id = await viewId(context);
    return viewAnswer(await updateSavedView(user.userId, id, body), 200, id);
  },
});

/** /api/views/{id}/delete: POST deletes the view. */
export const deleteViewRoute = routeWith({
  POST: async (request, context) => {
    const { user } = await postedBody(request, PURPOSE, parseDeleteView);
    const id = await viewId(context);
    if (!(await removeSavedView(user.userId, id))) throw notFound(id);
    return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
  },
});
