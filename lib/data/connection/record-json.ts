import { type RawBuilder, sql } from "kysely";
import { FIELDS_BY_KIND, type FieldDef, RECORD_KINDS, type RecordKind } from "@/lib/domain/fields";
import { formatMinor } from "@/lib/domain/money";
import type { Dialect } from "./dialect";
import { RECORD_JSON_TABLES, RECORD_TABLES } from "./schema";

/**
 * A record's JSON as the API answers it (docs/api.md, "Response body"), written field by field:
 * JSON.stringify cannot write 120.50 as a number with two decimals, and amounts must never pass
 * through a float on the way out. Each field's writer is chosen once per kind, not per value: a
 * 1000-record page is 43,000 values. It lives in the data module, below lib/api, because the
 * database writes the same JSON (`sqlRecordJson`, stored on PostgreSQL by `storeRecordJson`) and
 * the data module hands pages up already written; lib/api only wraps them in the envelope.
 */

type Writer = (value: unknown) => string;

function writerOf(def: FieldDef): Writer {
  switch (def.kind) {
    case "amount":
      return (value) => (value === null || value === undefined ? "null" : formatMinor(value as number | string | bigint));
    case "integer":
      return (value) =>
        value === null || value === undefined ? "null" : Number.isSafeInteger(value) ? String(value) : BigInt(value as number | string).toString();
    case "docIndicator":
      // 0 and 1 are numbers; the space the acquirer may deliver stays a string.
      return (value) => (value === null || value === undefined ? "null" : value === "0" || value === "1" ? value : JSON.stringify(value));
    default:
      return (value) => (value === null || value === undefined ? "null" : JSON.stringify(value));
  }
}

interface FieldPlan {
  name: string;
  /** `"name":` (or `,"name":`) */
  prefix: string;
  write: Writer;
}

const PLANS: Record<RecordKind, FieldPlan[]> = {
  chargeback: plan(FIELDS_BY_KIND.chargeback),
  pre_arbitration: plan(FIELDS_BY_KIND.pre_arbitration),
};

function plan(fields: readonly FieldDef[]): FieldPlan[] {
  return fields.map((def, i) => ({ name: def.name, prefix: `${i ? "," : ""}${JSON.stringify(def.name)}:`, write: writerOf(def) }));
}

/**
 * The same JSON as `recordJson`, written by the database itself: one SQL expression per kind and
 * backend whose value is a record's JSON text, so a 1000-record page crosses from the database
 * to JavaScript as 1,000 strings instead of 43,000 values. Each backend's SQL is the writer above
 * in its terms; a property test holds them equal on the real schema of both backends.
 *
 * SQLite: one printf of the fields, each written as text. PostgreSQL: row_to_json of a row whose
 * columns are the fields, each of the type whose JSON is the writer's (text quoted, integers as
 * they are, amounts as numeric with two decimals, the document indicator as json): one pass in C
 * per record, which plans and runs in less time than concatenating 43 texts (docs/performance.md,
 * "Why the server and the JSON writers are set as they are").
 */
function sqliteWriterOf(def: FieldDef): string {
  const c = `"${def.name}"`;
  switch (def.kind) {
    case "amount":
      // Minor units (an integer) as sign, whole units and two decimals: integer arithmetic only.
      return `case when ${c} is null then 'null' else printf('%s%d.%02d', case when ${c} < 0 then '-' else '' end, abs(${c}) / 100, abs(${c}) % 100) end`;
    case "integer":
      return `ifnull(${c}, 'null')`;
    case "docIndicator":
      return `case when ${c} in ('0', '1') then ${c} else json_quote(${c}) end`;
    default:
      // Text columns hold text (their affinity).
      return `json_quote(${c})`;
  }
}

/** A field as a PostgreSQL value whose JSON (row_to_json) is the writer's. */
function postgresValueOf(def: FieldDef): string {
  const c = `"${def.name}"`;
  switch (def.kind) {
    case "amount":
      // numeric is exact: minor units times 0.01 (a numeric of scale 2, so always two decimals)
      // is the amount, never a float, and cheaper than dividing and rounding.
      return `(${c} * 0.01)`;
    case "integer":
      return c;
    case "docIndicator":
      return `case when ${c} in ('0', '1') then ${c}::json else to_json(${c}) end`;
    default:
      return c;
  }
}

function sqlRecordJsonOf(dialect: Dialect, fields: readonly FieldDef[]): string {
  if (dialect === "postgres") {
    return `row_to_json((select "r" from (select ${fields.map((def) => `${postgresValueOf(def)} as "${def.name}"`).join(", ")}) as "r"))::text`;
  }
  const prefixes = plan(fields).map((field) => field.prefix.replaceAll("'", "''").replaceAll("%", "%%"));
  return `printf('{${prefixes.map((prefix) => `${prefix}%s`).join("")}}', ${fields.map(sqliteWriterOf).join(", ")})`;
}

const SQL_RECORD_JSON = Object.fromEntries(
  (["sqlite", "postgres"] as const).map((dialect) => [dialect, Object.fromEntries(RECORD_KINDS.map((kind) => [kind, sqlRecordJsonOf(dialect, FIELDS_BY_KIND[kind])]))]),
) as Record<Dialect, Record<RecordKind, string>>;

/** An expression over a record table's columns whose value is the record's JSON text. */
export function sqlRecordJson(dialect: Dialect, kind: RecordKind): string {
  return SQL_RECORD_JSON[dialect][kind];
}

/** The column in which a page statement answers each record's JSON text (`sqlRecordJson`). */
export const RECORD_JSON_COLUMN = "record_json";

/**
 * The JSON array of records whose texts the database wrote (`sqlRecordJson`), as UTF-8 bytes
 * written straight from the texts: no joined string of the page to build, flatten and encode
 * again for the response (docs/performance.md, "Why the server and the JSON writers are set as they are").
 */
export function jsonArrayBytes(records: readonly string[]): Buffer {
  let size = records.length > 0 ? records.length + 1 : 2;
  for (const record of records) size += Buffer.byteLength(record, "utf8");
  // Never a slice of Node's shared pool: a reader thread hands this buffer's memory over whole.
  const out = Buffer.allocUnsafeSlow(size);
  let at = out.write("[", 0, "latin1");
  for (let i = 0; i < records.length; i++) {
    if (i > 0) at += out.write(",", at, "latin1");
    at += out.write(records[i], at, "utf8");
  }
  out.write("]", at, "latin1");
  return out;
}

export function recordJson(kind: RecordKind, row: Record<string, unknown>): string {
  let out = "{";
  for (const field of PLANS[kind]) out += field.prefix + field.write(row[field.name]);
  return out + "}";
}

/** The records of a page as a JSON array. */
export function contentJson(kind: RecordKind, rows: readonly Record<string, unknown>[]): string {
  return `[${rows.map((row) => recordJson(kind, row)).join(",")}]`;
}

/**
 * PostgreSQL (migration 012): the statement that stores the JSON of the records with ids in
 * [first, last] (one imported file), or of every record of the kind (the migration), written by
 * PostgreSQL from the rows just stored with the expression a property test holds byte-equal to
 * the writer above (`sqlRecordJson`, `recordJson`). Written there rather than sent by the import
 * (about 1.1 KB a record as a text array): one 200,000-record file took 17.8 s this way against
 * 27.5 s sent (15.5 s before records had stored JSON).
 */
export function storeRecordJson(kind: RecordKind, ids?: { first: number; last: number }): RawBuilder<unknown> {
  const range = ids ? sql`where id between ${ids.first} and ${ids.last}` : sql``;
  return sql`insert into ${sql.table(RECORD_JSON_TABLES[kind])} (record_id, json)
    select id, ${sql.raw(sqlRecordJson("postgres", kind))} from ${sql.table(RECORD_TABLES[kind])} ${range} order by id`;
}
