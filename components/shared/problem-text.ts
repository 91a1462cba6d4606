import { ApiProblem } from "./api";

/** What a failed API call means for the user, with the request id to quote to support. */
export function problemText(error: unknown, what = "the records"): { title: string; detail?: string; reference?: string } {
  if (error instanceof ApiProblem) {
    const reference = error.requestId;
    if (error.status === 503) return { title: "The database is not reachable right now", detail: "Nothing is wrong with your filters. Please retry in a few seconds.", reference };
    if (error.status >= 500) return { title: `The server could not load ${what}`, detail: "An unexpected error occurred on the server. Please retry; if it persists, tell your acquirer's support and quote the reference below.", reference };
    return { title: error.title, detail: error.detail, reference };
  }
  return { title: `${what[0].toUpperCase()}${what.slice(1)} could not be loaded`, detail: error instanceof Error ? error.message : undefined };
}

/** Retries only what a retry can fix: the network and a database that is briefly away. */
export const retryTransient = (count: number, error: unknown) => error instanceof ApiProblem && (error.status === 0 || error.status === 503) && count < 2;
