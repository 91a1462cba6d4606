import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/connection/schema";
import { AccountError, checkShopCode, parseAccessList } from "./access";
import { dummyPasswordHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords";
import { decryptSecret, encryptSecret } from "./secrets";

/**
 * API shop credentials and dashboard users (docs/api.md, "Authentication", "Scope",
 * "Dashboard sign-in" and "Admin command"). Plain data functions over
 * the database handle, so the server and the commands share them.
 */

export { AccountError };

/** The sign-in form reads at most this many characters; a longer password could never sign in. */
export const MAX_PASSWORD_LENGTH = 1000;

/** Throws AccountError when a password is too short or too long. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AccountError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new AccountError(`the password must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

/** Ordered and de-duplicated; every code checked. */
function accessList(codes: readonly string[]): string[] {
  for (const code of codes) checkShopCode(code);
  return [...new Set(codes)];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Trimmed and lower-cased; throws AccountError when it is not an e-mail address. */
export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (value.length > 254 || CONTROL.test(value) || !EMAIL.test(value)) throw new AccountError(`invalid e-mail address ${JSON.stringify(email)}`);
  return value;
}

/** Both drivers' codes for a primary key or unique constraint violation. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

export async function createShop(db: Kysely<Database>, input: { shopCode: string; password: string; access?: readonly string[] }): Promise<{ shopCode: string; access: string[] }> {
  checkShopCode(input.shopCode);
  checkPassword(input.password);
  // The shop always sees itself, and it comes first.
  const access = accessList([input.shopCode, ...(input.access ?? [])]);
  const duplicate = () => new AccountError(`shop ${input.shopCode} already exists`);
  const existing = await db.selectFrom("shops").select("shop_code").where("shop_code", "=", input.shopCode).executeTakeFirst();
  if (existing) throw duplicate();
  try {
    await db
      .insertInto("shops")
      .values({ shop_code: input.shopCode, password_enc: encryptSecret(input.password, input.shopCode), access_list: JSON.stringify(access), created_at: Date.now() })
      .execute();
  } catch (err) {
    // Another command created it between the look-up and the insert.
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
  return { shopCode: input.shopCode, access };
}

export async function listShops(db: Kysely<Database>): Promise<{ shopCode: string; access: string[]; createdAt: number }[]> {
  const rows = await db.selectFrom("shops").select(["shop_code", "access_list", "created_at"]).orderBy("shop_code").execute();
  return rows.map((r) => ({ shopCode: r.shop_code, access: parseAccessList(r.access_list), createdAt: Number(r.created_at) }));
}

/**
 * The shop's password in clear, for checking a signature; null when there is no such shop.
 * Throws when the stored secret cannot be decrypted (another key): a configuration fault, not a
 * failed sign-in.
 */
export async function findShopCredential(db: Kysely<Database>, shopCode: string): Promise<{ shopCode: string; password: string; access: string[] } | null> {
  const row = await db.selectFrom("shops").selectAll().where("shop_code", "=", shopCode).executeTakeFirst();
  if (!row) return null;
  return { shopCode: row.shop_code, password: decryptSecret(row.password_enc, row.shop_code), access: parseAccessList(row.access_list) };
}

export async function createUser(db: Kysely<Database>, input: { email: string; password: string; access: readonly string[] }): Promise<{ email: string; access: string[] }> {
  const email = normaliseEmail(input.email);
  checkPassword(input.password);
  if (input.access.length === 0) throw new AccountError("a user needs an access list of at least one shop code");
  const access = accessList(input.access);
  const duplicate = () => new AccountError(`user ${email} already exists`);
  const existing = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
  if (existing) throw duplicate();
  const passwordHash = await hashPassword(input.password);
  try {
    await db.insertInto("users").values({ email, password_hash: passwordHash, access_list: JSON.stringify(access), created_at: Date.now() }).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    throw err;
  }
  return { email, access };
}

/**
 * The user for a correct e-mail and password, else null. An unknown or malformed e-mail costs
 * the same scrypt work as a wrong password, so timing does not tell which addresses exist.
 */
export async function verifyUserLogin(db: Kysely<Database>, email: string, password: string): Promise<{ userId: number; email: string; access: string[] } | null> {
  let normalised: string | undefined;
  try {
    normalised = normaliseEmail(email);
  } catch {
    normalised = undefined;
  }
  const row = normalised === undefined ? undefined : await db.selectFrom("users").selectAll().where("email", "=", normalised).executeTakeFirst();
  const ok = await verifyPassword(password, row?.password_hash ?? (await dummyPasswordHash()));
  if (!row || !ok) return null;
  return { userId: Number(row.id), email: row.email, access: parseAccessList(row.access_list) };
}
