import { type Kysely, type RawBuilder, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type DimensionName, dimensionOf, MAX_GROUPS, type SummaryRequest } from "@/lib/schemas/summary";
import type { Dialect } from "../connection/dialect";
import type { Row } from "../connection/read";
import type { Database } from "../connection/schema";
import { coversEveryShop } from "./record-counts";
import { storedValueKey, valueDimensions } from "./record-sums";
import { groupedJson } from "./summary-json";

/**
 * Each day's summary groups for every shop, written once (migration 019): `record_day_groups`
 * holds, per kind, file date and `dim` ("" or a value dimension, as in record_sums), the group
 * objects of a summary grouped by `["file_date"]` or `["file_date", dim]` over every shop, as the
 * summary API writes them (summary-json.ts), joined by commas, with their number and their record
 * count. A summary of a range grouped that way, for a scope that holds every shop with records,
 * is then those days' texts joined in date order instead of tens of thousands of groups and
 * currencies written again (a year by reason code is 7,700 groups, 2.8 MB;
 * docs/performance.md, "Each day's groups kept").
 *
 * The import rewrites a file date's rows after adding the file to record_sums, in the file's
 * transaction (refreshDayGroups), so they always agree with record_sums' day rows for every shop.
 * A day with more than MAX_GROUPS groups keeps their number and no text: any range holding it has
 * too many groups.
 */

/** The dims kept: the file date alone (""), and with each value dimension. */
export function dayGroupDims(kind: RecordKind): string[] {
  return ["", ...valueDimensions(kind).map(([name]) => name)];
}

const groupByOf = (dim: string): DimensionName[] => (dim ? ["file_date", dim as DimensionName] : ["file_date"]);

/** The every-shop day rows of record_sums of one dim (one day, or every day), keyed as the summary keys them (k0 the date, k1 the value). */
function everyShopDays(dialect: Dialect, kind: RecordKind, dim: string, day?: string): RawBuilder<unknown> {
  const value = dim === "" ? sql`` : sql`, ${storedValueKey(dialect, dimensionOf(kind, dim as DimensionName), sql`value`)} as k1`;
  const which = day === undefined ? sql`` : sql` and period = ${day}`;
  return sql`select period as k0${value}, ccy, n, reversals, amount, reversal_amount from record_sums
    where kind = ${kind} and dim = ${dim} and grain = 'day' and shop_code = ''${which}`;
}

/** The groups of one day (or of every day, in date order) of one dim, each as its JSON text `g` with its date `k0` and record count `n`. */
export function dayGroupsOf(dialect: Dialect, kind: RecordKind, dim: string, day?: string): RawBuilder<Row> {
  return groupedJson(dialect, kind, groupByOf(dim), everyShopDays(dialect, kind, dim, day), false, null);
}

/** One day's row of record_day_groups from its groups in order. */
export function dayGroupsRow(groups: readonly Row[]): { groups: number; n: number; json: string } {
  const n = groups.reduce((sum, row) => sum + Number(row.n), 0);
  if (groups.length > MAX_GROUPS) return { groups: groups.length, n, json: "" };
  return { groups: groups.length, n, json: groups.map((row) => row.g as string).join(",") };
}

/** Writes a file date's rows again from record_sums; call it inside the import's transaction, after addFileToRecordSums. */
export async function refreshDayGroups(trx: Kysely<Database>, dialect: Dialect, kind: RecordKind, day: string): Promise<void> {
  for (const dim of dayGroupDims(kind)) {
    const { rows } = await dayGroupsOf(dialect, kind, dim, day).execute(trx);
    const row = dayGroupsRow(rows);
    await sql`insert into record_day_groups (kind, dim, period, groups, n, json) values (${kind}, ${dim}, ${day}, ${row.groups}, ${row.n}, ${row.json})
      on conflict (kind, dim, period) do update set groups = excluded.groups, n = excluded.n, json = excluded.json`.execute(trx);
  }
}

/** Filters a request may have for its groups to be read from record_day_groups. */
const DAY_GROUP_FILTERS = new Set(["shop_codes", "file_date_from", "file_date_to", "group_by"]);

/**
 * The statement that reads a summary's groups from record_day_groups, when its request can be
 * answered so (grouped by the file date first, and by nothing or one value dimension; filtered by
 * dates alone): its first row says whether the scope holds every shop with records (`covers`),
 * and only then do the days' rows follow. Undefined for any other request.
 */
export function dayGroupsRead(dialect: Dialect, kind: RecordKind, request: SummaryRequest, shops: readonly string[]): RawBuilder<Row> | undefined {
  const [first, second, ...rest] = request.group_by;
  if (first !== "file_date" || rest.length > 0 || !Object.keys(request).every((key) => DAY_GROUP_FILTERS.has(key))) return undefined;
  const dim = second ?? "";
  if (!dayGroupDims(kind).includes(dim)) return undefined;
  const from = request.file_date_from === undefined ? sql`` : sql` and d.period >= ${request.file_date_from}`;
  const to = request.file_date_to === undefined ? sql`` : sql` and d.period <= ${request.file_date_to}`;
  return sql<Row>`select w.covers, d.groups, d.n, d.json from (select ${coversEveryShop(dialect, kind, shops)} as covers) as w
    left join record_day_groups d on w.covers and d.kind = ${kind} and d.dim = ${dim}${from}${to}
    order by d.period`;
}

/** The summary's groups from the rows of `dayGroupsRead`: undefined when the scope does not hold every shop (read them otherwise). */
export function fromDayGroups(rows: readonly Row[]): { groups: string[]; total: number; tooMany: boolean } | undefined {
  if (!rows[0]?.covers) return undefined;
  const groups: string[] = [];
  let count = 0;
  let total = 0;
  for (const row of rows) {
    if (row.json === null || row.json === undefined) continue;
    count += Number(row.groups);
    total += Number(row.n);
    if (row.json !== "") groups.push(row.json as string);
  }
  return { groups, total, tooMany: count > MAX_GROUPS };
}
