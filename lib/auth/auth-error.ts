/**
 * A refused caller, as lib/auth says it: lib/auth sits below lib/api and knows nothing of problem
 * responses, so lib/api (`asApiError` in problem.ts) turns this into one with the same status,
 * detail, title and headers (docs/api.md, "Authentication", "Errors").
 */
export class AuthError extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly detail: string,
    readonly extra: { headers?: Record<string, string>; title?: string } = {},
  ) {
    super(detail);
    this.name = "AuthError";
  }
}
