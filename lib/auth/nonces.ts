import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/schema";

/** Nonces are remembered for at least 24 hours, in the database so every instance shares them. */
export const NONCE_RETENTION_MS = 25 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;
let lastPurge = 0;

/** Records a nonce for a shop; false when the shop has used it before. */
export async function spendNonce(db: Kysely<Database>, shopCode: string, nonce: string, now = Date.now()): Promise<boolean> {
  if (now - lastPurge > PURGE_EVERY_MS) {
    lastPurge = now;
    await db.deleteFrom("used_nonces").where("used_at", "<", now - NONCE_RETENTION_MS).execute();
  }
  const inserted = await db
    .insertInto("used_nonces")
    .values({ shop_code: shopCode, nonce, used_at: now })
    .onConflict((oc) => oc.columns(["shop_code", "nonce"]).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}
