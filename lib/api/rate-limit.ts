import { sql } from "kysely";
import { authFailuresPerMinute, rateLimitPerMinute } from "@/lib/config";
import type { Db } from "@/lib/data/connection/db";

/**
 * The API's limits (docs/api.md, "Rate limits"):
 *
 * - RATE_LIMIT_PER_MINUTE per credential, a token bucket: bursts up to the per-minute limit,
 *   refilled evenly. The bucket is a row in the database (on SQLite in the state database) that
 *   every instance updates in one statement, so N instances allow the limit, not N times it.
 * - AUTH_FAILURES_PER_MINUTE per client address: failed authentications (a wrong signature, an
 *   unknown shop, a spent nonce, a dead session cookie), counted in this process's memory. Past
 *   it, the address gets 429 without its credentials being looked at, so guessing is slow.
 */

function secondsUntilOneToken(tokens: number, perMs: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
}

/**
 * The shared bucket: refill, take a token if there is one, and say whether it was taken, in one
 * statement (the row lock orders concurrent requests of the same credential across instances).
 * A clock that runs behind another instance's refills nothing and never moves the bucket back.
 */
export async function rateLimitWait(database: Db, credential: string, now = Date.now()): Promise<number> {
  const limit = rateLimitPerMinute();
  if (limit === 0) return 0;
  const perMs = limit / 60_000;
  const pg = database.dialect === "postgres";
  // least/greatest on PostgreSQL are SQLite's two-argument min/max.
  const [least, greatest] = pg ? [sql.raw("least"), sql.raw("greatest")] : [sql.raw("min"), sql.raw("max")];
  // Typed parameters: PostgreSQL cannot infer a type for a bare parameter inside least().
  const real = (value: number) => sql`cast(${value} as double precision)`;
  const moment = sql`cast(${now} as bigint)`;
  const refilled = sql`${least}(${real(limit)}, b.tokens + ${greatest}(0, ${moment} - b.updated_ms) * ${real(perMs)})`;
  const { rows } = await sql<{ taken: boolean | number; tokens: number }>`
    insert into rate_buckets as b (credential, tokens, updated_ms, taken)
    values (${credential}, ${real(limit - 1)}, ${moment}, ${pg ? sql`true` : sql`1`})
    on conflict (credential) do update set
      tokens = ${refilled} - case when ${refilled} >= 1 then 1 else 0 end,
      updated_ms = ${greatest}(b.updated_ms, ${moment}),
      taken = ${refilled} >= 1
    returning taken, tokens`.execute(database.db);
  const row = rows[0];
  return row && Boolean(Number(row.taken)) ? 0 : secondsUntilOneToken(Number(row?.tokens ?? 0), perMs);
}

interface FailureWindow {
  count: number;
  start: number;
}

const failures = new Map<string, FailureWindow>();
const MAX_ADDRESSES = 100_000;

/** Seconds until this address may try again, or 0 when it has not failed too often this minute. */
export function failedAuthWait(address: string, now = Date.now()): number {
  const limit = authFailuresPerMinute();
  if (limit === 0) return 0;
  const window = failures.get(address);
  if (!window || now - window.start >= 60_000 || window.count < limit) return 0;
  return Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
}

/** Counts one failed authentication from this address. */
export function noteFailedAuth(address: string, now = Date.now()): void {
  if (authFailuresPerMinute() === 0) return;
  let window = failures.get(address);
  if (!window || now - window.start >= 60_000) {
    if (!window && failures.size >= MAX_ADDRESSES) failures.clear();
    window = { count: 0, start: now };
    failures.set(address, window);
  }
  window.count++;
}
