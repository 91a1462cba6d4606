import { AuthError } from "@/lib/auth/auth-error";
import { currentRequest } from "@/lib/log";
import type { FieldError } from "@/lib/schemas/search";

/**
 * RFC 9457 problem details: every error of the API goes through ApiError, so no response can
 * carry a stack trace, SQL or a file path. Each body also names the request (`request_id`, an
 * extension member, the same value as the X-Request-Id header) for the caller to quote to support.
 */

export const PROBLEM_TITLES = {
  400: "Invalid request",
  401: "Authentication failed",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Request body too large",
  415: "Unsupported media type",
  429: "Too many requests",
  500: "Internal server error",
  503: "Service unavailable",
} as const;

export type ProblemStatus = keyof typeof PROBLEM_TITLES;

export class ApiError extends Error {
  constructor(
    readonly status: ProblemStatus,
    readonly detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; title?: string } = {},
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

export function problemBody(status: ProblemStatus, detail: string, errors?: FieldError[], title?: string) {
  return {
    type: `/docs#error-${status}`,
    title: title ?? PROBLEM_TITLES[status],
    status,
    detail,
    ...(errors ? { errors } : {}),
    ...requestIdMember(),
  };
}

function requestIdMember(): { request_id?: string } {
  const id = currentRequest()?.requestId;
  return id ? { request_id: id } : {};
}

export function problemResponse(err: ApiError): Response {
  return new Response(JSON.stringify(problemBody(err.status, err.detail, err.extra.errors, err.extra.title)), {
    status: err.status,
    headers: { "Content-Type": "application/problem+json", "Cache-Control": "no-store", ...err.extra.headers },
  });
}

/**
 * lib/auth's refusal as the API's problem, byte for byte what lib/auth used to throw itself: the
 * same status, detail, title and headers (WWW-Authenticate on a 401). Anything else passes as is.
 */
export function asApiError(err: unknown): unknown {
  return err instanceof AuthError ? new ApiError(err.status, err.detail, err.extra) : err;
}

/**
 * The scope rule (docs/api.md, "Scope") as every route applies it: naming a shop outside the
 * caller's access list is a 403 that names those shops; without shop_codes the scope is the list.
 */
export function requireInScope(shopCodes: readonly string[] | null | undefined, access: readonly string[]): void {
  const outside = (shopCodes ?? []).filter((code) => !access.includes(code));
  if (outside.length > 0) throw new ApiError(403, `shop_codes names shops outside your access list: ${outside.join(", ")}`);
}
