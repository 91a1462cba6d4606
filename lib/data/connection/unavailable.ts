/**
 * What a database error means for the request that met it (docs/api.md, "Errors"): an error is
 * looked at with its causes (a driver wraps the server's error), up to five deep.
 */

function* causes(err: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    yield e as { code?: unknown; message?: unknown };
    e = (e as { cause?: unknown }).cause;
  }
}

/** Whether the error or one of its causes carries one of these codes (SQLSTATE or Node's). */
export function hasErrorCode(err: unknown, codes: readonly string[]): boolean {
  for (const e of causes(err)) if (typeof e.code === "string" && codes.includes(e.code)) return true;
  return false;
}

// 57014: a statement cancelled at PG_QUERY_TIMEOUT_SECONDS (statement_timeout).
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EHOSTUNREACH", "57P01", "57P02", "57P03", "57014", "53300", "SQLITE_BUSY", "SQLITE_CANTOPEN"]);

/** True when an error means the database cannot be reached right now (an HTTP 503, not a 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code === "string" && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith("08"))) return true;
    if (typeof e.message === "string" && /timeout exceeded when trying to connect|Connection terminated|encountered a connection error and is not queryable|Query read timeout/i.test(e.message)) return true;
  }
  return false;
}

/**
 * Thrown when a server already holds as many long-read snapshots as it may (db.ts, `snapshot`):
 * the request answers 503 with Retry-After, instead of taking a connection every other request
 * of the server needs (docs/api.md, "CSV export").
 */
export class SnapshotsBusyError extends Error {
  readonly code = "SNAPSHOTS_BUSY";
  constructor(readonly limit: number) {
    super(`${limit} downloads already read their own snapshot on this server`);
    this.name = "SnapshotsBusyError";
  }
}

/** Whether the error is a `SnapshotsBusyError` (by its code: a bundle may hold two copies of the class). */
export const isSnapshotsBusy = (err: unknown): err is SnapshotsBusyError => hasErrorCode(err, ["SNAPSHOTS_BUSY"]);
