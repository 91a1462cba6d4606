import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/connection/schema";

/** Nonces are remembered for at least 24 hours, in the database so every instance shares them. */
export const NONCE_RETENTION_MS = 25 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 10 * 60 * 1000;
let lastPurge = 0;

/**
 * Nonces spent together in one statement. Every signed request writes its nonce before it is
 * answered; one statement each made the server's event loop pay a database round trip per request
 * (on PostgreSQL a socket write and read of its own). While a statement is in flight, the nonces
 * of the requests that arrive meanwhile wait and are written by the next statement, together: an
 * idle server writes each at once, a busy one in as few statements as the database's latency
 * allows. A nonce waits at most MAX_WAIT_MS for a statement in flight: a database that is slow or
 * does not answer at all (PG_QUERY_TIMEOUT_SECONDS) then gets the next statement beside it, so no
 * request waits for another request's statement to time out before its own is even sent.
 */
interface Spend {
  shopCode: string;
  nonce: string;
  usedAt: number;
  settle: (fresh: boolean) => void;
  fail: (err: unknown) => void;
}

interface Spender {
  waiting: Spend[];
  /** statements in flight */
  writing: number;
  /** sends what waits once MAX_WAIT_MS passed with a statement still in flight */
  timer?: NodeJS.Timeout;
}

const MAX_WAIT_MS = 20;

// Three bound values a row: far below either backend's limit on parameters.
const MAX_NONCES_A_STATEMENT = 500;

const spenders = new WeakMap<Kysely<Database>, Spender>();

const keyOf = (shopCode: string, nonce: string) => `${shopCode}\u0000${nonce}`;

/** Records a nonce for a shop; false when the shop has used it before. */
export async function spendNonce(db: Kysely<Database>, shopCode: string, nonce: string, now = Date.now()): Promise<boolean> {
  if (now - lastPurge > PURGE_EVERY_MS) {
    lastPurge = now;
    await db.deleteFrom("used_nonces").where("used_at", "<", now - NONCE_RETENTION_MS).execute();
  }
  let spender = spenders.get(db);
  if (!spender) spenders.set(db, (spender = { waiting: [], writing: 0 }));
  const s = spender;
  return new Promise<boolean>((settle, fail) => {
    s.waiting.push({ shopCode, nonce, usedAt: now, settle, fail });
    if (s.writing === 0) void writeWaiting(db, s);
    else s.timer ??= setTimeout(() => void writeWaiting(db, s), MAX_WAIT_MS);
  });
}

async function writeWaiting(db: Kysely<Database>, spender: Spender): Promise<void> {
  clearTimeout(spender.timer);
  spender.timer = undefined;
  if (spender.waiting.length === 0) return;
  const batch = spender.waiting.splice(0, MAX_NONCES_A_STATEMENT);
  spender.writing++;
  try {
    await writeBatch(db, batch);
  } finally {
    spender.writing--;
    // What arrived meanwhile goes out now, together.
    if (spender.waiting.length) void writeWaiting(db, spender);
  }
}

async function writeBatch(db: Kysely<Database>, batch: Spend[]): Promise<void> {
  // The same nonce twice in one statement: only its first request may spend it.
  const first = new Map<string, Spend>();
  for (const spend of batch) {
    const key = keyOf(spend.shopCode, spend.nonce);
    if (first.has(key)) spend.settle(false);
    else first.set(key, spend);
  }
  const spends = [...first.values()];
  try {
    const inserted = await db
      .insertInto("used_nonces")
      .values(spends.map((s) => ({ shop_code: s.shopCode, nonce: s.nonce, used_at: s.usedAt })))
      .onConflict((oc) => oc.columns(["shop_code", "nonce"]).doNothing())
      .returning(["shop_code", "nonce"])
      .execute();
    const fresh = new Set(inserted.map((row) => keyOf(row.shop_code, row.nonce)));
    for (const spend of spends) spend.settle(fresh.has(keyOf(spend.shopCode, spend.nonce)));
  } catch (err) {
    // Nothing of a failed statement was written: each of its requests fails as before.
    for (const spend of spends) spend.fail(err);
  }
}
