import { sql } from "kysely";
import { expect } from "vitest";
import type { Db } from "@/lib/data/db";

/**
 * Checks of the invariants every committed import keeps, against a fresh count of the records:
 * the summaries (record_counts with its running totals, record_shops) and dense ids.
 */

type Count = { kind: string; shop_code: string; file_date: string; n: number | string | bigint };

/** record_counts (n and the running total cum) and record_shops must equal a fresh group-by over both record tables. */
export async function expectRecordCountsInStep(db: Db): Promise<void> {
  const summary = await db.db.selectFrom("record_counts").select(["kind", "shop_code", "file_date", "n"]).execute();
  const grouped = await sql<Count>`
    select 'chargeback' as kind, shop_code, file_date, count(*) as n from chargebacks group by shop_code, file_date
    union all
    select 'pre_arbitration' as kind, shop_code, file_date, count(*) as n from pre_arbitrations group by shop_code, file_date`.execute(db.db);
  const key = (r: Count) => `${r.kind}|${r.shop_code}|${r.file_date}|${Number(r.n)}`;
  const expected = grouped.rows.map(key).sort();
  expect(expected.length).toBeGreaterThan(0);
  expect(summary.map(key).sort()).toEqual(expected);

  // Each shop's running total, day by day, and its total of all days.
  const running = new Map<string, number>();
  const cum: string[] = [];
  const perShop = new Map<string, number>();
  for (const r of [...grouped.rows].sort((a, b) => (`${a.kind}|${a.shop_code}|${a.file_date}` < `${b.kind}|${b.shop_code}|${b.file_date}` ? -1 : 1))) {
    const shop = `${r.kind}|${r.shop_code}`;
    running.set(shop, (running.get(shop) ?? 0) + Number(r.n));
    cum.push(`${shop}|${r.file_date}|${running.get(shop)}`);
    perShop.set(shop, running.get(shop)!);
  }
  const storedCum = await sql<{ kind: string; shop_code: string; file_date: string; cum: number | string }>`select kind, shop_code, file_date, cum from record_counts`.execute(db.db);
  expect(storedCum.rows.map((r) => `${r.kind}|${r.shop_code}|${r.file_date}|${Number(r.cum)}`).sort()).toEqual(cum.sort());
  const shops = await db.db.selectFrom("record_shops").select(["kind", "shop_code", "n"]).execute();
  expect(shops.map((r) => `${r.kind}|${r.shop_code}|${Number(r.n)}`).sort()).toEqual([...perShop].map(([shop, n]) => `${shop}|${n}`).sort());
}

/** Ids are 1..N in both record tables: the largest id is the number of records. */
export async function expectDenseIds(db: Db): Promise<void> {
  for (const t of ["chargebacks", "pre_arbitrations"] as const) {
    const r = await db.db.selectFrom(t).select((eb) => [eb.fn.countAll().as("n"), eb.fn.max("id").as("max")]).executeTakeFirstOrThrow();
    expect(Number(r.max ?? 0), t).toBe(Number(r.n));
  }
}
