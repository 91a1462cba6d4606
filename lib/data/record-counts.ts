import { type Kysely, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type Database, RECORD_TABLES } from "./schema";

/**
 * Adds one imported file's records to the (kind, shop, file date) summary. Call it inside the
 * import's transaction, after the file's rows are inserted, so the totals never disagree with
 * the rows.
 */
export async function addFileToRecordCounts(trx: Kysely<Database>, kind: RecordKind, fileId: number): Promise<void> {
  await sql`insert into record_counts (kind, shop_code, file_date, n)
    select ${kind}, shop_code, file_date, count(*) from ${sql.table(RECORD_TABLES[kind])} where file_id = ${fileId}
    group by shop_code, file_date
    on conflict (kind, shop_code, file_date) do update set n = record_counts.n + excluded.n`.execute(trx);
}
