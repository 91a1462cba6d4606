import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { RecordKind } from "@/lib/domain/fields";
import { type DimensionName, dimensionOf, MAX_GROUPS } from "@/lib/schemas/summary";
import type { Dialect } from "../connection/dialect";
import type { Row } from "../connection/read";
import type { Database, RecordTable } from "../connection/schema";

/**
 * How a summary's groups are written (docs/api.md, "Summaries"): the sums per group and currency
 * of a selection's rows, and each group's JSON object, written by the database. The summary API
 * and the report read through it (lib/data/queries/summary.ts), and the import through it keeps
 * each day's groups for every shop (day-groups.ts), so both write the same bytes.
 */

type Query = SelectQueryBuilder<Database, RecordTable, object>;

/** The sums of a selection's rows per group and currency: `counted` keeps only those with records (rows taken away may leave none). */
export function perCurrency(rows: RawBuilder<unknown> | Query, keys: readonly RawBuilder<unknown>[], counted: boolean): RawBuilder<unknown> {
  const having = counted ? sql`having sum(n) > 0` : sql``;
  const sums = sql`sum(n) as n, sum(reversals) as reversals, sum(amount) as amount, sum(reversal_amount) as reversal_amount`;
  return sql`select ${sql.join([...keys, sql`ccy`])}, ${sums} from (${rows}) as s group by ${sql.join([...keys, sql`ccy`])} ${having}`;
}

/** A value as its JSON string (a null as "null", as String(null) writes it). */
const quoted = (dialect: Dialect, value: RawBuilder<unknown>) =>
  dialect === "postgres" ? sql`to_json(coalesce(cast(${value} as text), 'null'))::text` : sql`json_quote(coalesce(cast(${value} as text), 'null'))`;

/**
 * Texts joined: on PostgreSQL by one concat(), which writes each part with its type's own output
 * and allocates the result once, where a chain of || allocates one text per step (a third of the
 * JSON's time on 10,000 groups and currencies; docs/performance.md, "PostgreSQL's JSON in one concat()").
 * Every part here is never null.
 */
const joinedText = (dialect: Dialect, parts: readonly RawBuilder<unknown>[]) =>
  dialect === "postgres" ? sql`concat(${sql.join(parts)})` : sql.join(parts, sql` || `);

/**
 * An exact sum of minor units as the JSON number of its amount, with two decimals (1234.50), never
 * a float (docs/api.md, "Response body"): on SQLite sign, whole units and cents by integer
 * arithmetic; on PostgreSQL the sum (numeric, scale 0) times 0.01, a numeric of scale 2, which
 * numeric's output writes with its two decimals.
 */
const amountJson = (dialect: Dialect, minor: RawBuilder<unknown>) =>
  dialect === "sqlite"
    ? sql`printf('%s%d.%02d', case when ${minor} < 0 then '-' else '' end, abs(${minor}) / 100, abs(${minor}) % 100)`
    : sql`cast(${minor} as numeric) * 0.01`;

/** A currency as its JSON string: the import takes only three capital letters (lib/import/validate.ts), never a null. */
const currencyJson = (dialect: Dialect) => (dialect === "postgres" ? [sql`'"'`, sql`ccy`, sql`'"'`] : [quoted(dialect, sql`ccy`)]);

/** Texts of a group's rows joined by commas, in the order given. */
const joined = (dialect: Dialect, text: RawBuilder<unknown>, order: RawBuilder<unknown>) =>
  dialect === "postgres" ? sql`string_agg(${text}, ',' order by ${order})` : sql`group_concat(${text}, ',' order by ${order})`;

/**
 * The groups in order, each as its JSON text (`g`, the response's group object) with its record
 * count (`n`), at most `MAX_GROUPS` + 1 of them (one more than allowed tells that there are too
 * many). The database writes the JSON: a year of file dates by reason code is 32,000 groups and
 * currencies, which cross to JavaScript as 7,700 strings instead of 230,000 values
 * (docs/performance.md, "The summaries' JSON").
 */
export function groupedJson(dialect: Dialect, kind: RecordKind, groupBy: readonly DimensionName[], rows: RawBuilder<unknown> | Query, counted: boolean, limit: number | null = MAX_GROUPS + 1): RawBuilder<Row> {
  const keys = groupBy.map((_, i) => sql.id(`k${i}`));
  const key = groupBy.flatMap((name, i) => {
    const prefix = sql.lit(`${i ? "," : ""}${JSON.stringify(name)}:`);
    return [prefix, dimensionOf(kind, name).key === "integer" ? sql`cast(${keys[i]} as text)` : quoted(dialect, keys[i])];
  });
  const amount = (column: string) => amountJson(dialect, sql.id(column));
  const currency =
    kind === "chargeback"
      ? [sql`'{"currency":'`, ...currencyJson(dialect), sql`',"chb_amount":'`, amount("amount"), sql`',"reversal_amount":'`, amount("reversal_amount"), sql`'}'`]
      : [sql`'{"currency":'`, ...currencyJson(dialect), sql`',"amount":'`, amount("amount"), sql`'}'`];
  const counts = kind === "chargeback" ? [sql`'"count":'`, sql`sum(n)`, sql`',"reversals":'`, sql`sum(reversals)`] : [sql`'"count":'`, sql`sum(n)`];
  const group = joinedText(dialect, [sql`'{"key":{'`, ...key, sql`'},'`, ...counts, sql`',"amounts":['`, joined(dialect, joinedText(dialect, currency), sql`ccy`), sql`']}'`]);
  const from = perCurrency(rows, keys, counted);
  // Without group_by the one group is the whole selection, and none when nothing matches.
  if (keys.length === 0) return sql<Row>`select ${group} as g, sum(n) as n from (${from}) as c having count(*) > 0`;
  const byKey = sql.join(keys);
  return sql<Row>`select ${group} as g, sum(n) as n from (${from}) as c group by ${byKey} order by ${byKey}${limit === null ? sql`` : sql` limit ${limit}`}`;
}
