import "server-only";
import type { Kysely } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type SearchRequest, SORT_KEY_COLUMNS } from "@/lib/schemas/search";
import type { Db } from "../connection/db";
import { type ReadStatement, VERSION_STATEMENT, versionKey } from "../connection/read";
import { RECORD_TABLES, type Database } from "../connection/schema";
import { type AccessPath, answeredBySummary, countOf } from "./selection";
import { statement } from "../connection/sql";

/**
 * The counts of a snapshot (data version `version`, a version key) say the scope holds every
 * record there is and that they are `records` many with ids up to `records`: distinct ids from 1
 * whose largest equals their count run 1..records without a gap.
 */
export interface EveryRecord {
  version: string;
  records: number;
}

/** An index entry tested in passing costs a fraction of a record fetched and sorted (docs/performance.md, "Why the access paths are what they are"). */
const WALK_COST_RATIO = 8;

/**
 * The access path of a page on SQLite. With only scope and dates, the summary tells how many
 * records match (m) of all there are (n, the ids are dense): walking the sort key's index reads
 * about (offset + limit) * n / m entries, seeking reads the m records and sorts them.
 */
export async function accessPath(
  read: Db["read"],
  db: Kysely<Database>,
  kind: RecordKind,
  request: SearchRequest,
  shops: readonly string[],
  count: ReadStatement,
): Promise<{ path: AccessPath; matched?: number; every?: EveryRecord }> {
  if (!answeredBySummary(request)) return { path: "planner" };
  const column = SORT_KEY_COLUMNS[request.sortKey];
  // One shop's index already holds its records in id and file-date order.
  if (shops.length === 1 && (column === "id" || column === "shop_code" || column === "file_date")) return { path: "seek" };
  const [version, matched, all] = await read([VERSION_STATEMENT, count, statement(db.selectFrom(RECORD_TABLES[kind]).select((eb) => eb.fn.max("id").as("n")).compile(), { memo: true })]);
  const m = countOf(matched);
  const n = countOf(all);
  if (m === 0) return { path: "seek", matched: m };
  const walked = ((request.page * request.per_page + request.per_page) * n) / m;
  if (walked > m * WALK_COST_RATIO) return { path: "seek", matched: m };
  const everyRecord = m === n && !request.file_date_from && !request.file_date_to;
  if (!everyRecord) return { path: "walk", matched: m };
  return { path: "walkEvery", matched: m, every: { version: versionKey(version), records: n } };
}
