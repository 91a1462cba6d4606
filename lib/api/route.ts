import "server-only";
import { getDb, isDatabaseUnavailable, isSnapshotsBusy } from "@/lib/data/connection/db";
import { searchRecords } from "@/lib/data/queries/search";
import type { RecordKind } from "@/lib/domain/fields";
import { authenticate, type Caller } from "@/lib/auth/request-auth";
import { currentRequest, errorFields, log, notePrincipal } from "@/lib/log";
import { type FieldError, parseSearchRequest } from "@/lib/schemas/search";
import { ApiError, asApiError, problemResponse, requireInScope } from "./problem";
import { failedAuthWait, noteFailedAuth, rateLimitWait } from "./rate-limit";
import { checkContentType, parseJsonBody, readBodyText } from "./read-body";
import { envelopeJson } from "./serialize";

/** What a POST endpoint of the API does once the caller is known: validate, then answer. */
export interface PostEndpoint<T> {
  /** the body's validity (400 with the offending fields when it breaks a rule) */
  parse(body: unknown): { ok: true; request: T } | { ok: false; errors: FieldError[] };
  /** the shop codes the request names, checked against the caller's access list (403) */
  shopCodes(request: T): readonly string[] | null | undefined;
  /** the answer, for a valid request inside the caller's scope */
  answer(request: T, caller: Caller): Promise<Response>;
}

/**
 * The pipeline of every POST endpoint of the API, in the order docs/api.md, "Errors" fixes: method, content
 * type, body size, authentication, (rate limit), validity, scope; then the endpoint's answer.
 */
export function postRoute<T>(endpoint: PostEndpoint<T>) {
  async function POST(request: Request): Promise<Response> {
    try {
      checkContentType(request.headers.get("content-type"));
      const text = await readBodyText(request);
      const database = await getDb();
      const caller = await throttledAuthentication(request, () => authenticate(request, database.db));
      const wait = await rateLimitWait(database, caller.credential);
      if (wait > 0) {
        throw new ApiError(429, "too many requests for this credential; retry after the given seconds", { headers: { "Retry-After": String(wait) } });
      }
      const parsed = endpoint.parse(parseJsonBody(text));
      if (!parsed.ok) throw new ApiError(400, "the request body breaks the rules of this endpoint", { errors: parsed.errors });
      requireInScope(endpoint.shopCodes(parsed.request), caller.access);
      return await endpoint.answer(parsed.request, caller);
    } catch (err) {
      return errorResponse(err);
    }
  }

  const notAllowed = async () => problemResponse(new ApiError(405, "this endpoint answers POST only", { headers: { Allow: "POST" } }));

  return { POST, GET: notAllowed, HEAD: notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed, OPTIONS: notAllowed };
}

/**
 * A JSON answer that no cache keeps. Bytes in parts go out as a stream of those parts: a
 * Response made from bytes copies them first (the Fetch standard's body extraction).
 */
export function jsonAnswer(body: string | readonly Uint8Array[]): Response {
  const stream =
    typeof body === "string"
      ? body
      : new ReadableStream<Uint8Array>({
          start(controller) {
            for (const part of body) controller.enqueue(part);
            controller.close();
          },
        });
  return new Response(stream, { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
}

/** Both search endpoints (docs/api.md, "Endpoints"): one query, the page envelope. */
export function searchRoute(kind: RecordKind) {
  return postRoute({
    parse: (body) => parseSearchRequest(kind, body),
    shopCodes: (request) => request.shop_codes,
    async answer(request, caller) {
      const result = await searchRecords(kind, request, caller.access);
      return jsonAnswer(envelopeJson(result.content, result.totalPages, result.totalElements));
    },
  });
}

/** The address the production server determined for this request (server/main.ts). */
export function clientAddress(): string {
  return currentRequest()?.clientAddress ?? "unknown";
}

/**
 * Authentication behind the per-address throttle of failed attempts: an address that failed too
 * often this minute gets 429 before its credentials are looked at, and every failure of a request
 * that presented credentials (headers or a cookie) counts. The caller is named in the access line.
 */
export async function throttledAuthentication<T extends Pick<Caller, "credential">>(request: Request, authenticateCaller: () => Promise<T>): Promise<T> {
  const address = clientAddress();
  const wait = failedAuthWait(address);
  if (wait > 0) {
    throw new ApiError(429, "too many failed authentications from your address; retry after the given seconds", { headers: { "Retry-After": String(wait) } });
  }
  try {
    const caller = await authenticateCaller();
    notePrincipal(caller.credential);
    return caller;
  } catch (err) {
    const refused = asApiError(err);
    if (refused instanceof ApiError && refused.status === 401 && presentsCredentials(request)) noteFailedAuth(address);
    throw refused;
  }
}

function presentsCredentials(request: Request): boolean {
  const h = request.headers;
  return h.has("x-shop-code") || h.has("x-nonce") || h.has("x-signature") || h.has("cookie");
}

export function errorResponse(thrown: unknown): Response {
  const err = asApiError(thrown);
  if (err instanceof ApiError) return problemResponse(err);
  if (isSnapshotsBusy(err)) {
    log.warn({ request_id: currentRequest()?.requestId, limit: err.limit }, "downloads at their limit");
    return problemResponse(new ApiError(503, "this server is already sending as many long downloads as it may; retry shortly", { headers: { "Retry-After": "10" } }));
  }
  if (isDatabaseUnavailable(err)) {
    log.warn({ request_id: currentRequest()?.requestId, ...errorFields(err) }, "database unavailable");
    return problemResponse(new ApiError(503, "the database is unreachable; retry shortly", { headers: { "Retry-After": "5" } }));
  }
  // The details go to the server log only; the caller gets no stack trace, SQL or path.
  log.error({ request_id: currentRequest()?.requestId, ...errorFields(err) }, "unexpected error in API request");
  return problemResponse(new ApiError(500, "an unexpected error occurred"));
}
