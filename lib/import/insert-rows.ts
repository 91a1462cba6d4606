import { CompiledQuery, type Kysely } from "kysely";
import type { Dialect } from "@/lib/data/migrations";
import type { Database, RecordTable } from "@/lib/data/schema";
import type { RowValues } from "./validate";

/**
 * Multi-row inserts for the bulk load. The statement text depends only on the row count, so it
 * is written once and reused: building the same 200-row insert through the query builder for
 * every batch cost as much CPU as the database's own work.
 */
export function rowInserter(dialect: Dialect, table: RecordTable, columns: string[]) {
  const statements = new Map<number, string>();
  const statement = (rows: number): string => {
    let text = statements.get(rows);
    if (!text) {
      let n = 0;
      const placeholder = dialect === "postgres" ? () => `$${++n}` : () => "?";
      const tuples = Array.from({ length: rows }, () => `(${columns.map(placeholder).join(", ")})`);
      text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values ${tuples.join(", ")}`;
      statements.set(rows, text);
    }
    return text;
  };
  return async (trx: Kysely<Database>, rows: RowValues[]): Promise<void> => {
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of columns) parameters.push(row[column]);
    await trx.executeQuery(CompiledQuery.raw(statement(rows.length), parameters));
  };
}
