import { type Kysely, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/kinds";
import type { ShopEntry } from "@/lib/schemas/shops";
import { getDb } from "../connection/db";
import type { Dialect } from "../connection/dialect";
import type { Row } from "../connection/read";
import { type Database, RECORD_TABLES } from "../connection/schema";
import { listRows, statement } from "../connection/sql";

export type { ShopEntry };

/**
 * The shop directory (docs/api.md, "Shop directory"; migration 013): per shop code with records,
 * the merchant and parent merchant its records name. A file replaces what an earlier file said:
 * "later" is the greater (file date, imported file id), so a file of an older date imported late
 * changes nothing its newer files said. The merchant half follows files of either kind; the
 * parent half only chargeback files (pre-arbitration records have no parent fields). Within one
 * file, the shop's last row (highest record id) speaks for it.
 */

/** A kind's columns of the two halves (pre-arbitration records carry no parent). */
const PARENT_COLUMNS: Record<RecordKind, { id: string; name: string } | null> = {
  chargeback: { id: "parent_mrch_id", name: "parent_mrch_name" },
  pre_arbitration: null,
};

/**
 * Adds one imported file (its records are the ids firstId..lastId of its kind's table) to the
 * directory, in the import's transaction: one statement, whatever the number of shops. The
 * file's last row per shop: SQLite's max() picks the other bare columns from the row it chose;
 * PostgreSQL takes the first row per shop in descending id order.
 */
export async function updateShopDirectory(
  trx: Kysely<Database>,
  dialect: Dialect,
  kind: RecordKind,
  fileId: number,
  fileDate: string,
  firstId: number,
  lastId: number,
): Promise<void> {
  if (lastId < firstId) return;
  const table = sql.table(RECORD_TABLES[kind]);
  const parent = PARENT_COLUMNS[kind];
  const parentColumns = parent ? sql`, ${sql.ref(parent.id)} as parent_id, ${sql.ref(parent.name)} as parent_name` : sql``;
  const lastRows =
    dialect === "sqlite"
      ? sql`(select shop_code, merchant_id, merchant_name${parentColumns}, max(id) as last_id
          from ${table} where id between ${firstId} and ${lastId} group by shop_code)`
      : sql`(select distinct on (shop_code) shop_code, merchant_id, merchant_name${parentColumns}
          from ${table} where id between ${firstId} and ${lastId} order by shop_code, id desc)`;
  // Each half is replaced only by a later file; a shop without a parent half yet takes any chargeback file's.
  const merchantLater = sql`(excluded.merchant_file_date, excluded.merchant_file_id) > (shop_directory.merchant_file_date, shop_directory.merchant_file_id)`;
  const parentLater = sql`(shop_directory.parent_file_id is null
    or (excluded.parent_file_date, excluded.parent_file_id) > (shop_directory.parent_file_date, shop_directory.parent_file_id))`;
  const take = (column: string, later: typeof merchantLater) =>
    sql`${sql.id(column)} = case when ${later} then excluded.${sql.id(column)} else shop_directory.${sql.id(column)} end`;
  const merchantSet = ["merchant_id", "merchant_name", "merchant_file_date", "merchant_file_id"].map((c) => take(c, merchantLater));
  const parentSet = parent ? ["parent_merchant_id", "parent_merchant_name", "parent_file_date", "parent_file_id"].map((c) => take(c, parentLater)) : [];
  const insertColumns = parent
    ? sql`(shop_code, merchant_id, merchant_name, merchant_file_date, merchant_file_id, parent_merchant_id, parent_merchant_name, parent_file_date, parent_file_id)`
    : sql`(shop_code, merchant_id, merchant_name, merchant_file_date, merchant_file_id)`;
  const file = sql`${fileDate}, cast(${fileId} as bigint)`;
  const values = parent ? sql`f.shop_code, f.merchant_id, f.merchant_name, ${file}, f.parent_id, f.parent_name, ${file}` : sql`f.shop_code, f.merchant_id, f.merchant_name, ${file}`;
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  await sql`insert into shop_directory ${insertColumns}
    select ${values} from ${lastRows} as f where true
    on conflict (shop_code) do update set ${sql.join([...merchantSet, ...parentSet], sql`, `)}`.execute(trx);
}

/**
 * The directory entry of every shop code of `access`, in bytewise order of shop code (nulls for
 * a shop without records), read like every other read of the data module: one statement through
 * `read` (a reader thread on SQLite), the list as one bound value.
 */
export async function shopDirectory(access: readonly string[]): Promise<ShopEntry[]> {
  const codes = [...new Set(access)];
  if (codes.length === 0) return [];
  const { db, dialect, read } = await getDb();
  const code = dialect === "postgres" ? sql`s.code collate "C"` : sql`s.code`;
  const query = sql`select s.code as shop_code, d.merchant_id, d.merchant_name, d.parent_merchant_id, d.parent_merchant_name
    from ${listRows(dialect, codes)} as s left join shop_directory d on d.shop_code = s.code
    order by ${code}`.compile(db);
  const [rows] = (await read([statement(query)])) as Row[][];
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return rows.map((r) => ({
    shop_code: String(r.shop_code),
    merchant_id: text(r.merchant_id),
    merchant_name: text(r.merchant_name),
    parent_merchant_id: text(r.parent_merchant_id),
    parent_merchant_name: text(r.parent_merchant_name),
  }));
}
