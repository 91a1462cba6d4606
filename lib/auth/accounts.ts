import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/schema";
import { AccountError, checkShopCode, parseAccessList } from "./access";
import { dummyPasswordHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords";
import { decryptSecret, encryptSecret } from "./secrets";

/** API shop credentials and dashboard users (CONTRACT 2, 3, 5 and 7). */

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw new AccountError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const value = email.trim().toLowerCase();
  if (!EMAIL.test(value) || value.length > 254) throw new AccountError(`invalid e-mail address ${JSON.stringify(email)}`);
  return value;
}

export async function createShop(db: Kysely<Database>, input: { shopCode: string; password: string; access?: string[] }): Promise<{ shopCode: string; access: string[] }> {
  checkShopCode(input.shopCode);
  checkPassword(input.password);
  for (const code of input.access ?? []) checkShopCode(code);
  // The shop always sees itself, first.
  const access = [...new Set([input.shopCode, ...(input.access ?? [])])];
  const existing = await db.selectFrom("shops").select("shop_code").where("shop_code", "=", input.shopCode).executeTakeFirst();
  if (existing) throw new AccountError(`shop ${input.shopCode} already exists`);
  await db
    .insertInto("shops")
    .values({ shop_code: input.shopCode, password_enc: encryptSecret(input.password, input.shopCode), access_list: JSON.stringify(access), created_at: Date.now() })
    .execute();
  return { shopCode: input.shopCode, access };
}

export async function listShops(db: Kysely<Database>) {
  const rows = await db.selectFrom("shops").select(["shop_code", "access_list", "created_at"]).orderBy("shop_code").execute();
  return rows.map((r) => ({ shopCode: r.shop_code, access: parseAccessList(r.access_list), createdAt: Number(r.created_at) }));
}

/** The shop's password in clear, for checking a signature; null when there is no such shop. */
export async function findShopCredential(db: Kysely<Database>, shopCode: string) {
  const row = await db.selectFrom("shops").selectAll().where("shop_code", "=", shopCode).executeTakeFirst();
  if (!row) return null;
  return { shopCode: row.shop_code, password: decryptSecret(row.password_enc, row.shop_code), access: parseAccessList(row.access_list) };
}

export async function createUser(db: Kysely<Database>, input: { email: string; password: string; access: string[] }): Promise<{ email: string; access: string[] }> {
  const email = normaliseEmail(input.email);
  checkPassword(input.password);
  if (input.access.length === 0) throw new AccountError("a user needs an access list of at least one shop (--access)");
  for (const code of input.access) checkShopCode(code);
  const access = [...new Set(input.access)];
  const existing = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
  if (existing) throw new AccountError(`user ${email} already exists`);
  await db
    .insertInto("users")
    .values({ email, password_hash: await hashPassword(input.password), access_list: JSON.stringify(access), created_at: Date.now() })
    .execute();
  return { email, access };
}

export async function listUsers(db: Kysely<Database>) {
  const rows = await db.selectFrom("users").select(["email", "access_list", "created_at"]).orderBy("email").execute();
  return rows.map((r) => ({ email: r.email, access: parseAccessList(r.access_list), createdAt: Number(r.created_at) }));
}

/** The user for a correct e-mail and password; an unknown e-mail costs the same scrypt time. */
export async function verifyUserLogin(db: Kysely<Database>, email: string, password: string) {
  let normalised: string;
  try {
    normalised = normaliseEmail(email);
  } catch {
    await verifyPassword(password, await dummyPasswordHash());
    return null;
  }
  const row = await db.selectFrom("users").selectAll().where("email", "=", normalised).executeTakeFirst();
  const ok = await verifyPassword(password, row?.password_hash ?? (await dummyPasswordHash()));
  if (!row || !ok) return null;
  return { userId: Number(row.id), email: row.email, access: parseAccessList(row.access_list) };
}
