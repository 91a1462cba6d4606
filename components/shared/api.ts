"use client";

import { KINDS, type RecordKind } from "@/lib/domain/kinds";

/** A failed API call, with what the problem+json body said. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail?: string,
    /** the server's X-Request-Id of the failed answer, for the user to quote to support */
    readonly requestId?: string,
    /** the fields the request broke, when the server named them */
    readonly fields: readonly { field: string; message: string }[] = [],
  ) {
    super(detail ?? title);
    this.name = "ApiProblem";
  }
}

/** The page envelope of the searches and the worklist (docs/api.md, "Response body"). */
export interface RecordPage<T> {
  content: T[];
  totalPages: number;
  totalElements: number;
}

/** One page from the same API external systems use; the session cookie authenticates it. */
export function fetchRecords<T>(kind: RecordKind, body: Record<string, unknown>, signal?: AbortSignal): Promise<RecordPage<T>> {
  return postApi<RecordPage<T>>(KINDS[kind].apiPath, body, signal);
}

/**
 * A POST to the API with the session cookie. A 401 means the session ended (expired or signed
 * out elsewhere): the browser goes to sign-in and comes back to this exact view afterwards. Any
 * other failure is an ApiProblem with what the problem+json body said and the request id.
 */
export function postApi<T>(path: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  return callApi<T>(path, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body), signal });
}

/** A GET of the dashboard's own routes (the saved views), answered like postApi. */
export function getApi<T>(path: string, signal?: AbortSignal): Promise<T> {
  return callApi<T>(path, { method: "GET", headers: { Accept: "application/json" }, signal });
}

async function callApi<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, credentials: "same-origin" });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiProblem(0, "The server could not be reached", "Check your connection and try again.");
  }
  if (response.status === 401) {
    const next = window.location.pathname + window.location.search;
    // A full page load, not a client navigation: the server must see the missing session.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    window.location.assign(`/login?${new URLSearchParams({ next, reason: "expired" })}`);
    throw new ApiProblem(401, "Your session has ended");
  }
  if (!response.ok) {
    let title = `The server answered ${response.status}`;
    let detail: string | undefined;
    let fields: { field: string; message: string }[] = [];
    const requestId = response.headers.get("x-request-id") ?? undefined;
    try {
      const problem = (await response.json()) as { title?: unknown; detail?: unknown; errors?: { field: string; message: string }[] };
      if (typeof problem.title === "string") title = problem.title;
      if (typeof problem.detail === "string") detail = problem.detail;
      if (Array.isArray(problem.errors) && problem.errors.length) {
        fields = problem.errors;
        detail = problem.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
      }
    } catch {
      // not a problem+json body
    }
    throw new ApiProblem(response.status, title, detail, requestId, fields);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}
