import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/schema";
import { parseAccessList } from "./access";

/** Dashboard sessions: a random token in an HttpOnly cookie; only its SHA-256 is stored. */

export const SESSION_COOKIE = "dr_session";
export const SESSION_TTL_MS = Number(process.env.SESSION_TTL_HOURS || 8) * 60 * 60 * 1000;

const hashToken = (token: string) => crypto.createHash("sha256").update(token, "utf8").digest("hex");

export async function createSession(db: Kysely<Database>, userId: number, now = Date.now()) {
  await db.deleteFrom("sessions").where("expires_at", "<", now).execute();
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = now + SESSION_TTL_MS;
  await db.insertInto("sessions").values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: expiresAt }).execute();
  return { token, expiresAt };
}

export async function findSession(db: Kysely<Database>, token: string, now = Date.now()) {
  if (!token || token.length > 200) return null;
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

export async function deleteSession(db: Kysely<Database>, token: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", hashToken(token)).execute();
}
