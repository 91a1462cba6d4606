import { sql } from "kysely";
import { loginLimits } from "@/lib/config";
import type { Db } from "@/lib/data/connection/db";

/**
 * Sign-in throttling (docs/api.md, "Dashboard sign-in"). Every attempt is counted BEFORE the
 * password is checked, per account (the e-mail address as typed, normalised) and per client
 * address, in the database so that every instance shares the count. Past the limit an attempt is
 * refused without running scrypt at all: guessing is slow, and a burst of sign-ins cannot spend
 * the server's CPU on password hashes. A successful sign-in clears its account's count and takes
 * its own attempt off the address's count, so an office of many users behind one address is held
 * back only by failures (and attempts still running), while one good account buys an address no
 * extra guesses at others.
 */

export interface LoginVerdict {
  allowed: boolean;
  /** whole minutes until the oldest window ends, when refused */
  retryMinutes: number;
}

const accountKey = (email: string) => `account:${email.trim().toLowerCase()}`;
const addressKey = (address: string) => `address:${address}`;

/** Counts this attempt and says whether it may go on to the password check. */
export async function countLoginAttempt(database: Db, email: string, address: string, now = Date.now()): Promise<LoginVerdict> {
  const limits = loginLimits();
  const checks = [
    { key: accountKey(email), limit: limits.perAccount },
    { key: addressKey(address), limit: limits.perAddress },
  ];
  let retryMs = 0;
  for (const { key, limit } of checks) {
    // A window that has ended starts again at this attempt; otherwise the attempt is added to it.
    const { rows } = await sql<{ attempts: number; window_start: number }>`
      insert into login_throttle as t (key, attempts, window_start) values (${key}, 1, ${now})
      on conflict (key) do update set
        attempts = case when t.window_start <= ${now - limits.windowMs} then 1 else t.attempts + 1 end,
        window_start = case when t.window_start <= ${now - limits.windowMs} then ${now} else t.window_start end
      returning attempts, window_start`.execute(database.db);
    const row = rows[0];
    if (row && Number(row.attempts) > limit) retryMs = Math.max(retryMs, Number(row.window_start) + limits.windowMs - now);
  }
  return { allowed: retryMs === 0, retryMinutes: Math.max(1, Math.ceil(retryMs / 60_000)) };
}

/** After a successful sign-in: the account starts afresh, and the address's count loses this attempt. */
export async function noteLoginSuccess(database: Db, email: string, address: string): Promise<void> {
  await database.db.deleteFrom("login_throttle").where("key", "=", accountKey(email)).execute();
  await sql`update login_throttle set attempts = attempts - 1 where key = ${addressKey(address)} and attempts > 0`.execute(database.db);
}

/** Housekeeping: windows that ended long ago. */
export async function purgeLoginAttempts(database: Db, now = Date.now()): Promise<void> {
  await database.db.deleteFrom("login_throttle").where("window_start", "<", now - 2 * loginLimits().windowMs).execute();
}
