import "server-only";
import { isSameOrigin, readCookie } from "@/lib/auth/request-auth";
import { findSession, sessionTokenFrom } from "@/lib/auth/sessions";
import { getDb } from "@/lib/data/connection/db";
import type { FieldError } from "@/lib/schemas/search";
import { ApiError, problemResponse } from "./problem";
import { rateLimitWait } from "./rate-limit";
import { checkContentType, parseJsonBody, readBodyText } from "./read-body";
import { errorResponse, throttledAuthentication } from "./route";

/**
 * What the routes of a signed-in dashboard user's own things share (saved views, mail settings):
 * the checks in the order of docs/api.md, "Errors": method, content type, body size,
 * authentication (a session cookie of this site's own pages; signed requests refused), the
 * credential's rate limit, the body's validity.
 */

export type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface DashboardUser {
  userId: number;
  access: string[];
  credential: string;
}

/** The signed-in user behind a request, checked like every cookie-authenticated request (lib/auth/request-auth.ts). */
export async function dashboardUser(request: Request, purpose: string): Promise<DashboardUser> {
  const headers = request.headers;
  if (headers.has("x-shop-code") || headers.has("x-nonce") || headers.has("x-signature")) {
    throw new ApiError(403, `${purpose} belong to signed-in dashboard users; a shop's API credentials have none`, { title: "Dashboard users only" });
  }
  const database = await getDb();
  const user = await throttledAuthentication(request, async () => {
    const token = sessionTokenFrom((name) => readCookie(headers.get("cookie"), name));
    if (!token) throw new ApiError(401, `sign in to use ${purpose}`);
    // As for every cookie-authenticated request: never from another site's page.
    if (!isSameOrigin(request)) throw new ApiError(403, "cookie-authenticated requests must come from this site's own pages", { title: "Cross-origin request refused" });
    const session = await findSession(database.db, token);
    if (!session) throw new ApiError(401, `sign in to use ${purpose}`);
    return { userId: session.userId, access: session.access, credential: `user:${session.userId}` };
  });
  const wait = await rateLimitWait(database, user.credential);
  if (wait > 0) throw new ApiError(429, "too many requests for this credential; retry after the given seconds", { headers: { "Retry-After": String(wait) } });
  return user;
}

/** A POST's JSON body, checked before the caller is (415, 413), then its user, then the body's validity (400). */
export async function postedBody<T>(
  request: Request,
  purpose: string,
  parse: (body: unknown) => { ok: true; request: T } | { ok: false; errors: FieldError[] },
): Promise<{ user: DashboardUser; body: T }> {
  checkContentType(request.headers.get("content-type"));
  const text = await readBodyText(request);
  const user = await dashboardUser(request, purpose);
  const parsed = parse(parseJsonBody(text));
  if (!parsed.ok) throw new ApiError(400, "the request body breaks the rules of this endpoint", { errors: parsed.errors });
  return { user, body: parsed.request };
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

const METHODS = ["GET", "POST", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];

/**
 * A route of every method (the dashboard user's routes and the unsubscribe link's): the given handlers, each failure a problem response (docs/api.md,
 * "Errors"), and 405 with Allow for the methods not given.
 */
export function routeWith(handlers: Partial<Record<Method, Handler>>): Record<Method, Handler> {
  const allow = METHODS.filter((m) => handlers[m]).join(", ");
  const notAllowed: Handler = async () => problemResponse(new ApiError(405, `this endpoint answers ${allow} only`, { headers: { Allow: allow } }));
  return Object.fromEntries(METHODS.map((m) => [m, handlers[m] ? guarded(handlers[m]) : notAllowed])) as Record<Method, Handler>;
}
