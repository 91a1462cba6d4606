import crypto from "node:crypto";
import type { Kysely } from "kysely";
import { ConfigError } from "@/lib/config";
import type { Database } from "@/lib/data/connection/schema";
import { parseAccessList } from "./access";

/**
 * Dashboard sessions (docs/api.md, "Dashboard sign-in"): a random token in an HttpOnly cookie. Only the token's SHA-256
 * is stored, so a copy of the database holds no usable session.
 */

export const SESSION_COOKIE = "dr_session";
/**
 * Over https the cookie is Secure and takes the `__Host-` prefix: the browser then refuses it
 * unless it is Secure, for this host only (no Domain) and for every path, so neither a sibling
 * subdomain nor a plain-http page can plant or overwrite it.
 */
export const SECURE_SESSION_COOKIE = "__Host-dr_session";
export const SESSION_COOKIE_NAMES = [SECURE_SESSION_COOKIE, SESSION_COOKIE] as const;

export const sessionCookieName = (secure: boolean) => (secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** The session token from whichever of the two cookie names the browser holds (the secure one first). */
export function sessionTokenFrom(get: (name: string) => string | undefined): string | undefined {
  for (const name of SESSION_COOKIE_NAMES) {
    const value = get(name);
    if (value) return value;
  }
  return undefined;
}

/** SESSION_TTL_HOURS (a positive number, fractions allowed); default 8 hours. */
export function sessionTtlMs(raw = process.env.SESSION_TTL_HOURS): number {
  if (raw === undefined || raw.trim() === "") return 8 * 60 * 60 * 1000;
  const hours = Number(raw);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !(hours > 0) || hours > 24 * 366) {
    throw new ConfigError("SESSION_TTL_HOURS must be a positive number of hours");
  }
  return Math.round(hours * 60 * 60 * 1000);
}

let ttlMs: number | undefined;
/** The configured session lifetime, read once (the server checks it at start: lib/config-check.ts). */
export const sessionTtl = (): number => (ttlMs ??= sessionTtlMs());

// Tokens are 43 base64url characters; anything much longer is not ours and not worth hashing.
const MAX_TOKEN_LENGTH = 200;

/** How a session token is kept: its SHA-256, never the token (sessions.token_hash). */
export const hashToken = (token: string) => crypto.createHash("sha256").update(token, "utf8").digest("hex");

export async function createSession(db: Kysely<Database>, userId: number, now = Date.now()): Promise<{ token: string; expiresAt: number }> {
  // Housekeeping on the way: sign-ins are rare enough that this costs nothing noticeable.
  await db.deleteFrom("sessions").where("expires_at", "<=", now).execute();
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = now + sessionTtl();
  await db.insertInto("sessions").values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: expiresAt }).execute();
  return { token, expiresAt };
}

/** The signed-in user of an unexpired session, or null. */
export async function findSession(
  db: Kysely<Database>,
  token: string,
  now = Date.now(),
): Promise<{ userId: number; email: string; access: string[]; expiresAt: number } | null> {
  if (!token || token.length > MAX_TOKEN_LENGTH) return null;
  const row = await db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(["users.id as userId", "users.email", "users.access_list", "sessions.expires_at"])
    .where("sessions.token_hash", "=", hashToken(token))
    .where("sessions.expires_at", ">", now)
    .executeTakeFirst();
  if (!row) return null;
  return { userId: Number(row.userId), email: row.email, access: parseAccessList(row.access_list), expiresAt: Number(row.expires_at) };
}

/** Signing out ends the session on the server, not only in the browser. */
export async function deleteSession(db: Kysely<Database>, token: string): Promise<void> {
  if (!token || token.length > MAX_TOKEN_LENGTH) return;
  await db.deleteFrom("sessions").where("token_hash", "=", hashToken(token)).execute();
}
