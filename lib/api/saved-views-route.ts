import "server-only";
import { isSameOrigin, readCookie } from "@/lib/auth/request-auth";
import { findSession, sessionTokenFrom } from "@/lib/auth/sessions";
import { getDb } from "@/lib/data/db";
import { createSavedView, listSavedViews, removeSavedView, type SavedViewError, type SavedViewResult, updateSavedView } from "@/lib/data/saved-views";
import { parseCreateView, parseDeleteView, parseUpdateView } from "@/lib/schemas/saved-views";
import type { FieldError } from "@/lib/schemas/search";
import { ApiError, problemResponse } from "./problem";
import { rateLimitWait } from "./rate-limit";
import { checkContentType, parseJsonBody, readBodyText } from "./read-body";
import { errorResponse, jsonAnswer, throttledAuthentication } from "./route";

/**
 * The saved views' routes (docs/api.md, "Saved views"): for signed-in dashboard users only, each
 * user's own views. The checks run in the order of docs/api.md, "Errors": method, content type,
 * body size, authentication (a session cookie of this site's own pages; signed requests refused),
 * the credential's rate limit, the body's validity; then 404 for a view the user does not have
 * (another user's included) and 409 for a name the user already uses or a full list.
 */

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface ViewUser {
  userId: number;
  access: string[];
  credential: string;
}

/** The signed-in user behind a request, checked like every cookie-authenticated request (lib/auth/request-auth.ts). */
async function viewUser(request: Request): Promise<ViewUser> {
  const headers = request.headers;
  if (headers.has("x-shop-code") || headers.has("x-nonce") || headers.has("x-signature")) {
    throw new ApiError(403, "saved views belong to signed-in dashboard users; a shop's API credentials have none", { title: "Dashboard users only" });
  }
  const database = await getDb();
  const user = await throttledAuthentication(request, async () => {
    const token = sessionTokenFrom((name) => readCookie(headers.get("cookie"), name));
    if (!token) throw new ApiError(401, "sign in to use saved views");
    // As for every cookie-authenticated request: never from another site's page.
    if (!isSameOrigin(request)) throw new ApiError(403, "cookie-authenticated requests must come from this site's own pages", { title: "Cross-origin request refused" });
    const session = await findSession(database.db, token);
    if (!session) throw new ApiError(401, "sign in to use saved views");
    return { userId: session.userId, access: session.access, credential: `user:${session.userId}` };
  });
  const wait = await rateLimitWait(database, user.credential);
  if (wait > 0) throw new ApiError(429, "too many requests for this credential; retry after the given seconds", { headers: { "Retry-After": String(wait) } });
  return user;
}

/** A POST's body, checked before the caller is (415, 413), then its user, then the body's validity (400). */
async function postedBody<T>(request: Request, parse: (body: unknown) => { ok: true; request: T } | { ok: false; errors: FieldError[] }): Promise<{ user: ViewUser; body: T }> {
  checkContentType(request.headers.get("content-type"));
  const text = await readBodyText(request);
  const user = await viewUser(request);
  const parsed = parse(parseJsonBody(text));
  if (!parsed.ok) throw new ApiError(400, "the request body breaks the rules of this endpoint", { errors: parsed.errors });
  return { user, body: parsed.request };
}

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

function guarded(handler: Handler): Handler {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

function otherMethods(allow: string) {
  const notAllowed = async () => problemResponse(new ApiError(405, `this endpoint answers ${allow} only`, { headers: { Allow: allow } }));
  return { HEAD: notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed, OPTIONS: notAllowed };
}

/** /api/views: GET lists the user's views, POST saves a new one. */
export const viewsRoute = {
  GET: guarded(async (request) => {
    const { userId } = await viewUser(request);
    return jsonAnswer(JSON.stringify({ views: await listSavedViews(userId) }));
  }),
  POST: guarded(async (request) => {
    const { user, body } = await postedBody(request, parseCreateView);
    return viewAnswer(await createSavedView(user.userId, body), 201);
  }),
  ...otherMethods("GET, POST"),
};

/** /api/views/{id}: POST renames the view and/or makes it (or stops it being) its page's default. */
export const viewRoute = {
  POST: guarded(async (request, context) => {
    const { user, body } = await postedBody(request, parseUpdateView);
    const id = await viewId(context);
    return viewAnswer(await updateSavedView(user.userId, id, body), 200, id);
  }),
  GET: async () => problemResponse(new ApiError(405, "this endpoint answers POST only", { headers: { Allow: "POST" } })),
  ...otherMethods("POST"),
};

/** /api/views/{id}/delete: POST deletes the view. */
export const deleteViewRoute = {
  POST: guarded(async (request, context) => {
    const { user } = await postedBody(request, parseDeleteView);
    const id = await viewId(context);
    if (!(await removeSavedView(user.userId, id))) throw notFound(id);
    return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
  }),
  GET: async () => problemResponse(new ApiError(405, "this endpoint answers POST only", { headers: { Allow: "POST" } })),
  ...otherMethods("POST"),
};
