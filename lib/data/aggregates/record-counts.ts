import { type Kysely, type RawBuilder, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import type { Dialect } from "../connection/dialect";
import type { Database } from "../connection/schema";
import { listRows } from "../connection/sql";

/**
 * Exact totals without counting rows. `record_counts` holds, per kind, shop and file date, the
 * records of that day (`n`) and the shop's running total up to and including that day (`cum`).
 * The records of a shop between two dates are then two index look-ups, whatever the span:
 * cum at the last file date <= to, minus cum at the last file date < from. A scope of 200 shops
 * costs 400 look-ups, not a scan of 200 shops x 730 days.
 */

/**
 * Adds one imported file's records to the summary. Every record of a file has the file's date,
 * so a file adds `perShop` records to each shop on one day and to the running totals of that
 * day and every later day. Two statements whatever the number of shops. Call it inside the
 * import's transaction, so the summary and the rows commit together.
 */
export async function addFileToRecordCounts(
  trx: Kysely<Database>,
  dialect: Dialect,
  kind: RecordKind,
  fileDate: string,
  perShop: ReadonlyMap<string, number>,
): Promise<void> {
  if (perShop.size === 0) return;
  const shops = [...perShop.keys()];
  const counts = [...perShop.values()];
  // (shop, n) of this file, as a derived table from two bound values.
  const file =
    dialect === "postgres"
      ? sql`(select * from unnest(${shops}::text[], ${counts}::bigint[]) as f(shop, n))`
      : sql`(select key as shop, value as n from json_each(${JSON.stringify(Object.fromEntries(perShop))}))`;
  const earlier = sql`(select rc.cum from record_counts rc
    where rc.kind = ${kind} and rc.shop_code = f.shop and rc.file_date < ${fileDate}
    order by rc.file_date desc limit 1)`;
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  await sql`insert into record_counts (kind, shop_code, file_date, n, cum)
    select ${kind}, f.shop, ${fileDate}, f.n, f.n + coalesce(${earlier}, 0) from ${file} as f where true
    on conflict (kind, shop_code, file_date) do update set n = record_counts.n + excluded.n, cum = record_counts.cum + excluded.n`.execute(trx);
  await sql`insert into record_shops (kind, shop_code, n) select ${kind}, f.shop, f.n from ${file} as f where true
    on conflict (kind, shop_code) do update set n = record_shops.n + excluded.n`.execute(trx);
  // Daily files arrive in date order, so this usually touches nothing.
  await sql`update record_counts set cum = cum + f.n from ${file} as f
    where record_counts.kind = ${kind} and record_counts.shop_code = f.shop and record_counts.file_date > ${fileDate}`.execute(trx);
}

/** The running total of a shop at the last file date on or before (`<=`) or before (`<`) a date. */
function cumulative(kind: RecordKind, shop: RawBuilder<unknown>, op: "<=" | "<", date: string | undefined): RawBuilder<number> {
  const bound = date === undefined ? sql`` : sql`and rc.file_date ${sql.raw(op)} ${date}`;
  return sql<number>`coalesce((select rc.cum from record_counts rc
    where rc.kind = ${kind} and rc.shop_code = ${shop} ${bound}
    order by rc.file_date desc limit 1), 0)`;
}

/**
 * The statement that counts the records of `shops` with file dates in [from, to] (either bound
 * optional) from the summary: one row, one column `n`.
 */
export function countFromSummary(dialect: Dialect, kind: RecordKind, shops: readonly string[], from?: string, to?: string): RawBuilder<{ n: number | string | null }> {
  if (shops.length === 0) return sql`select 0 as n`;
  // Without dates: each shop's total, one look-up per shop.
  if (from === undefined && to === undefined) {
    return sql`select coalesce(sum(n), 0) as n from record_shops where kind = ${kind} and shop_code in ${listRows(dialect, shops)}`;
  }
  const code = sql.ref("s.code");
  const upTo = cumulative(kind, code, "<=", to);
  const before = from === undefined ? sql`0` : cumulative(kind, code, "<", from);
  return sql`select coalesce(sum(${upTo} - ${before}), 0) as n from ${listRows(dialect, shops)} as s`;
}

/**
 * True when `shops` holds every shop with records of the kind: a walk then need not test each
 * entry's shop. An uncorrelated condition, evaluated once per statement, so it reads the same
 * snapshot as the rows it lets through.
 */
export function coversEveryShop(dialect: Dialect, kind: RecordKind, shops: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`not exists (select 1 from record_shops rs where rs.kind = ${kind} and rs.shop_code not in ${listRows(dialect, shops)})`;
}
