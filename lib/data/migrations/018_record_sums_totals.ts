import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";

/**
 * Running totals per month (grain "total", lib/data/aggregates/record-sums.ts): the sums of every
 * record up to the end of each month, for every month from a kind's first month with records to
 * its latest, gap months included, so that a long file-date range is read as two sets of totals
 * and days at its ends instead of one set per month (lib/data/queries/summary.ts; docs/performance.md,
 * "Running totals"). Built here from the month rows, month by month: the total of a month is the
 * total of the month before, carried, plus the month's own rows; the import keeps them from now on.
 */

/** The month after "YYYY-MM". */
function nextMonth(month: string): string {
  const [year, m] = month.split("-").map(Number);
  return m === 12 ? `${String(year + 1).padStart(4, "0")}-01` : `${String(year).padStart(4, "0")}-${String(m + 1).padStart(2, "0")}`;
}

export function migration018(dialect: Dialect): Migration {
  const pg = dialect === "postgres";
  return {
    async up(db) {
      for (const kind of ["chargeback", "pre_arbitration"]) {
        const { rows: range } = await sql<{ first: string | null; last: string | null }>`select min(period) as first, max(period) as last
          from record_sums where kind = ${kind} and dim = '' and grain = 'month'`.execute(db);
        const { first, last } = range[0];
        if (first === null || last === null) continue;
        // The kind's dimensions, each then a range of the primary key (kind, dim, grain, period, ...).
        const dims: string[] = [];
        for (;;) {
          const { rows } = await sql<{ dim: string | null }>`select min(dim) as dim from record_sums
            where kind = ${kind} and dim > ${dims.length ? dims[dims.length - 1] : ""}`.execute(db);
          if (rows[0].dim === null) break;
          dims.push(rows[0].dim);
        }
        dims.unshift("");
        let before: string | undefined;
        for (let month = first; month <= last; month = nextMonth(month)) {
          const carried = before === undefined ? sql`` : sql`select dim, shop_code, value, ccy, n, reversals, amount, reversal_amount from record_sums
              where kind = ${kind} and dim in (${sql.join(dims)}) and grain = 'total' and period = ${before} union all `;
          await sql`insert into record_sums (kind, dim, grain, period, shop_code, value, ccy, n, reversals, amount, reversal_amount)
            select cast(${kind} as text), dim, 'total', cast(${month} as text), shop_code, value, ccy, sum(n), sum(reversals), sum(amount), sum(reversal_amount)
            from (${carried}select dim, shop_code, value, ccy, n, reversals, amount, reversal_amount from record_sums
              where kind = ${kind} and dim in (${sql.join(dims)}) and grain = 'month' and period = ${month}) as s
            group by dim, shop_code, value, ccy`.execute(db);
          before = month;
        }
      }
      await sql`analyze ${sql.raw(pg ? "record_sums" : "main.record_sums")}`.execute(db);
    },
  };
}
