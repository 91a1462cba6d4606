import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { spendNonce } from "@/lib/auth/nonces";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";

/**
 * Nonces spent together (lib/auth/nonces.ts): requests that arrive while one statement is in
 * flight share the next one. Whatever shares a statement, a nonce is fresh exactly once per shop.
 */
describe.each(backends)("spending nonces on $name", (backend) => {
  const opened: Db[] = [];
  const open = async () => {
    const db = await openDatabase(await backend.create());
    opened.push(db);
    return db.db;
  };

  afterAll(async () => {
    for (const db of opened) await db.close().catch(() => {});
    await dropCreatedDatabases();
  });

  it("lets one of many concurrent requests with the same nonce spend it", async () => {
    const db = await open();
    // (The process's first spend also purges old nonces first: done here, not in the burst.)
    expect(await spendNonce(db, "shop-a", "warm-up-nonce-0001")).toBe(true);
    // The first request's statement goes out alone; the 30 that arrive meanwhile share the next.
    const [first, ...same] = await Promise.all([
      spendNonce(db, "shop-a", "first-nonce-00001"),
      ...Array.from({ length: 30 }, () => spendNonce(db, "shop-a", "same-nonce-000001")),
    ]);
    expect(first).toBe(true);
    expect(same.filter(Boolean)).toHaveLength(1);
    expect(await spendNonce(db, "shop-a", "same-nonce-000001")).toBe(false);
  });

  it("spends each of many different nonces once, also when they share a statement", async () => {
    const db = await open();
    const nonces = Array.from({ length: 1200 }, (_, i) => `nonce-${String(i).padStart(12, "0")}`);
    expect(await Promise.all(nonces.map((n) => spendNonce(db, "shop-a", n)))).toEqual(nonces.map(() => true));
    expect(await Promise.all(nonces.map((n) => spendNonce(db, "shop-a", n)))).toEqual(nonces.map(() => false));
    // The same nonces are another shop's own.
    expect(await Promise.all(nonces.slice(0, 50).map((n) => spendNonce(db, "shop-b", n)))).toEqual(nonces.slice(0, 50).map(() => true));
    // Fresh and spent ones mixed in one burst.
    const mixed = ["mixed-nonce-00001", nonces[7], "mixed-nonce-00002", nonces[9]];
    expect(await Promise.all(mixed.map((n) => spendNonce(db, "shop-a", n)))).toEqual([true, false, true, false]);
  });

  it("fails every request of a statement that fails, and spends nothing", async () => {
    const handle = await openDatabase(await backend.create());
    await expect(spendNonce(handle.db, "shop-a", "before-closing-01")).resolves.toBe(true);
    await handle.close();
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => spendNonce(handle.db, "shop-a", `after-closing-0${i}`)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => "rejected"));
  });

  // A statement that waits (a slow or frozen database; here a row another transaction holds)
  // must not hold back the nonces that arrive meanwhile: they go out beside it after a moment.
  it.runIf(backend.name === "postgres")("does not keep a nonce waiting behind a statement that is blocked", async () => {
    const url = await backend.create();
    const handle = await openDatabase(url);
    opened.push(handle);
    expect(await spendNonce(handle.db, "shop-a", "warm-up-nonce-0002")).toBe(true);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query("begin");
      await other.query("insert into used_nonces (shop_code, nonce, used_at) values ('shop-a', 'held-nonce-000001', 1)");
      // Blocks on the other transaction's row until it ends.
      const held = spendNonce(handle.db, "shop-a", "held-nonce-000001");
      await new Promise((resolve) => setTimeout(resolve, 200));
      const free = spendNonce(handle.db, "shop-a", "free-nonce-000001");
      const timedOut = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 3000));
      expect(await Promise.race([free, timedOut])).toBe(true);
      await other.query("rollback");
      expect(await held).toBe(true);
    } finally {
      await other.end();
    }
  });
});
