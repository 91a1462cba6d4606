/**
 * The second floor: each class's work as hand-written SQL run directly on the database with
 * its own driver (better-sqlite3, pg), no server, no query builder. The ideal statements for a
 * search are the exact count of the selection and the page itself: the same filters, the order
 * of docs/api.md, "Selection and order" (sort key, then id, the same direction; a NULL order number first ascending and
 * last descending) and the same limit and offset. A scope that covers every shop is left out,
 * as a query planner would wish.
 */
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { RECORD_TABLES } from "@/lib/data/connection/schema";
import type { RecordKind } from "@/lib/domain/fields";
import { SORT_KEY_COLUMNS, type SortKey, type SortOrder } from "@/lib/schemas/search";
import { median } from "./http";
import type { Backend } from "./options";

export interface SqlClient {
  dialect: Backend;
  all(text: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function openSql(url: string): Promise<SqlClient> {
  if (url.startsWith("file:")) {
    const db = new BetterSqlite3(url.slice("file:".length), { readonly: true, fileMustExist: true });
    const statements = new Map<string, BetterSqlite3.Statement>();
    return {
      dialect: "sqlite",
      all: async (text, params) => {
        let statement = statements.get(text);
        if (!statement) statements.set(text, (statement = db.prepare(text)));
        return statement.all(...params) as Record<string, unknown>[];
      },
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    dialect: "postgres",
    all: async (text, params) => {
      let n = 0;
      return (await client.query(text.replace(/\?/g, () => `$${++n}`), [...params])).rows as Record<string, unknown>[];
    },
    close: () => client.end(),
  };
}

/** What a class selects, spelt out: the scope is the shops the request may see after shop_codes. */
export interface Selection {
  kind: RecordKind;
  scope: readonly string[];
  /** the scope holds every shop there is */
  everyShop: boolean;
  from?: string;
  to?: string;
  acqRefNrs?: readonly string[];
  sortKey: SortKey;
  sortOrder: SortOrder;
  page: number;
  perPage: number;
}

export interface Statement {
  text: string;
  params: unknown[];
}

export function floorStatements(sel: Selection, dialect: Backend): { count: Statement; page: Statement } {
  const table = RECORD_TABLES[sel.kind];
  const where: string[] = [];
  const params: unknown[] = [];
  const list = (values: readonly string[]) => values.map(() => "?").join(", ");
  if (!sel.everyShop) {
    where.push(sel.scope.length === 1 ? "shop_code = ?" : `shop_code in (${list(sel.scope)})`);
    params.push(...sel.scope);
  }
  if (sel.from) {
    where.push("file_date >= ?");
    params.push(sel.from);
  }
  if (sel.to) {
    where.push("file_date <= ?");
    params.push(sel.to);
  }
  if (sel.acqRefNrs?.length) {
    where.push(`acq_ref_nr in (${list(sel.acqRefNrs)})`);
    params.push(...sel.acqRefNrs);
  }
  const filter = where.length ? ` where ${where.join(" and ")}` : "";
  const column = SORT_KEY_COLUMNS[sel.sortKey];
  const dir = sel.sortOrder;
  // SQLite already puts NULL first ascending and last descending; PostgreSQL does the opposite.
  const nulls = dialect === "postgres" && column === "payment_order_nr" ? (dir === "asc" ? " nulls first" : " nulls last") : "";
  const order = column === "id" ? `id ${dir}` : `${column} ${dir}${nulls}, id ${dir}`;
  return {
    count: { text: `select count(*) as n from ${table}${filter}`, params },
    page: { text: `select * from ${table}${filter} order by ${order} limit ? offset ?`, params: [...params, sel.perPage, sel.page * sel.perPage] },
  };
}

export interface FloorFigures {
  medianMs: number;
  runs: number;
  /** the count the SQL gives: the API's totalElements must be the same */
  total: number;
  rows: number;
  sql: string[];
}

/**
 * Runs count + page one after another: one unmeasured run, then `runs` measured ones (at
 * least three, fewer than `runs` when they take longer than `budgetSeconds`); the median.
 */
export async function measureFloor(client: SqlClient, sel: Selection, runs: number, budgetSeconds: number): Promise<FloorFigures> {
  const { count, page } = floorStatements(sel, client.dialect);
  const once = async () => {
    const started = performance.now();
    const n = Number((await client.all(count.text, count.params))[0].n);
    const rows = (await client.all(page.text, page.params)).length;
    return { ms: performance.now() - started, n, rows };
  };
  let last = await once();
  const times: number[] = [];
  const deadline = performance.now() + budgetSeconds * 1000;
  while (times.length < runs && (times.length < 3 || performance.now() < deadline)) {
    last = await once();
    times.push(last.ms);
  }
  times.sort((a, b) => a - b);
  return { medianMs: Math.round(median(times) * 100) / 100, runs: times.length, total: last.n, rows: last.rows, sql: [count.text, page.text] };
}
