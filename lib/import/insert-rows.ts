import { CompiledQuery, type Kysely } from "kysely";
import type { Db } from "@/lib/data/connection/db";
import type { Database, RecordTable } from "@/lib/data/connection/schema";
import type { RowValues } from "./validate";

/**
 * The bulk load's row writer, the fastest path of each backend. SQLite: one prepared single-row
 * insert, reused for every row on the import's own connection (no statement text to build or
 * parse per batch). PostgreSQL: a batch of rows as one array per column through unnest(), one
 * statement of n parameters instead of rows x n.
 */
export interface RowWriter {
  add(row: RowValues): Promise<void>;
  /** writes what is buffered; call before the transaction commits */
  flush(): Promise<void>;
}

const PG_BATCH_ROWS = 2000;

export function rowWriter(db: Db, trx: Kysely<Database>, table: RecordTable, columns: readonly { name: string; integer: boolean }[]): RowWriter {
  const quoted = columns.map((c) => `"${c.name}"`).join(", ");
  const sqlite = db.sqlite;
  if (sqlite) {
    // Same connection as `trx`, so the rows belong to the import's transaction.
    const insert = sqlite.prepare(`insert into "${table}" (${quoted}) values (${columns.map(() => "?").join(", ")})`);
    return {
      async add(row) {
        insert.run(columns.map((c) => row[c.name] ?? null));
      },
      async flush() {},
    };
  }
  const arrays = columns.map(() => [] as unknown[]);
  const statement = `insert into "${table}" (${quoted}) select * from unnest(${columns.map((c, i) => `$${i + 1}::${c.integer ? "bigint" : "text"}[]`).join(", ")})`;
  const flush = async () => {
    if (arrays[0].length === 0) return;
    const parameters = arrays.map((a) => a.splice(0));
    await trx.executeQuery(CompiledQuery.raw(statement, parameters));
  };
  return {
    async add(row) {
      for (let i = 0; i < columns.length; i++) arrays[i].push(row[columns[i].name] ?? null);
      if (arrays[0].length >= PG_BATCH_ROWS) await flush();
    },
    flush,
  };
}
