import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from "kysely";
import { describe, expect, it } from "vitest";
import type { Database } from "@/lib/data/connection/schema";
import { monthsAndDays, rangePieces, summaryQuery, totalsAndDays } from "@/lib/data/queries/summary";
import type { SummaryRequest } from "@/lib/schemas/summary";

/**
 * Which rows a summary's statement reads (lib/data/queries/summary.ts): the report groups by any two of the
 * summaries' dimensions (docs/api.md, "Summaries", the documents extension included), so a request
 * filtered by scope and file dates alone and grouped by any two of them must read record_sums (a
 * stored pair when both are value dimensions), never the records. The dimensions and pairs are
 * typed out here; the answers themselves are held to the model by tests/api/summary.test.ts.
 */

const compilerOf = (dialect: "sqlite" | "postgres") =>
  new Kysely<Database>({
    dialect: {
      createAdapter: () => (dialect === "postgres" ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (dialect === "postgres" ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (dialect === "postgres" ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });

const REPORT = {
  chargeback: { table: "chargebacks", dims: ["month", "file_date", "shop_code", "merchant_id", "card_type", "reason_code", "function_code", "documents"] },
  pre_arbitration: { table: "pre_arbitrations", dims: ["month", "file_date", "shop_code", "merchant_id", "case_stage"] },
} as const;
const PLACES = new Set(["month", "file_date", "shop_code"]);

describe.each(["sqlite", "postgres"] as const)("the summaries' access path on %s", (dialect) => {
  const db = compilerOf(dialect);
  const year = { file_date_from: "2025-11-21", file_date_to: "2026-11-20" };

  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    const { table, dims } = REPORT[kind];
    const groupings = dims.flatMap((a, i) => dims.slice(i + 1).map((b) => [a, b]));

    it(`reads ${kind} sums, never the records, for any two of the report's dimensions (both orders)`, () => {
      for (const [a, b] of groupings) {
        for (const group_by of [[a, b], [b, a]]) {
          for (const request of [{ ...year, group_by }, { ...year, shop_codes: ["S001", "S002"], group_by }, { group_by }]) {
            const query = summaryQuery(db, dialect, kind, request as SummaryRequest, ["S001", "S002", "S003"]);
            expect(query.sql, JSON.stringify(request)).toContain("record_sums");
            expect(query.sql, JSON.stringify(request)).not.toContain(`"${table}"`);
            // The dimension read: the pair of both value dimensions (in the stored order), or the one.
            const values = group_by.filter((d) => !PLACES.has(d));
            const dim = values.length < 2 ? (values[0] ?? "") : [`${values[0]},${values[1]}`, `${values[1]},${values[0]}`];
            const dims = query.parameters.filter((p) => typeof p === "string" && (p === "" || /^[a-z_]+(,[a-z_]+)?$/.test(p)));
            if (typeof dim === "string") expect(dims, JSON.stringify(request)).toContain(dim);
            else expect(dims.filter((p) => dim.includes(p as string)).length, JSON.stringify(request)).toBeGreaterThan(0);
          }
        }
      }
    });
  }

  it("reads the records for a filter record_sums cannot answer", () => {
    for (const request of [
      { ...year, merchant_id: "M01", group_by: ["merchant_id", "reason_code"] },
      { ...year, acq_ref_nrs: ["A1"], group_by: ["documents", "reason_code"] },
    ]) {
      const query = summaryQuery(db, dialect, "chargeback", request as SummaryRequest, ["S001"]);
      expect(query.sql, JSON.stringify(request)).toContain('"chargebacks"');
      expect(query.sql, JSON.stringify(request)).not.toContain("record_sums");
    }
  });
});

describe("a file-date range in months and days (monthsAndDays)", () => {
  it("reads whole months by month, a month covered in part by its days or whole less the days outside", () => {
    // A year ending on the 25th: its first month's last five days, eleven whole months, and its
    // last month whole less the five days after the 25th.
    expect(monthsAndDays("2025-11-26", "2026-11-25")).toEqual([
      { grain: "month", from: "2025-12", to: "2026-10" },
      { grain: "day", from: "2025-11-26", to: "2025-11-30" },
      { grain: "month", from: "2026-11", to: "2026-11" },
      { grain: "day", from: "2026-11-26", to: "2026-11-30", subtract: true },
    ]);
    // Inside one month: the days when they are at most half of it; else the month less both ends.
    expect(monthsAndDays("2026-02-10", "2026-02-20")).toEqual([{ grain: "day", from: "2026-02-10", to: "2026-02-20" }]);
    expect(monthsAndDays("2026-02-02", "2026-02-27")).toEqual([
      { grain: "month", from: "2026-02", to: "2026-02" },
      { grain: "day", from: "2026-02-01", to: "2026-02-01", subtract: true },
      { grain: "day", from: "2026-02-28", to: "2026-02-28", subtract: true },
    ]);
    expect(monthsAndDays("2026-02-01", "2026-02-28")).toEqual([{ grain: "month", from: "2026-02", to: "2026-02" }]);
    // Open ends, and a range of whole months.
    expect(monthsAndDays(undefined, "2026-03-01")).toEqual([
      { grain: "month", from: undefined, to: "2026-02" },
      { grain: "day", from: "2026-03-01", to: "2026-03-01" },
    ]);
    expect(monthsAndDays("2026-01-31")).toEqual([
      { grain: "month", from: "2026-02", to: undefined },
      { grain: "day", from: "2026-01-31", to: "2026-01-31" },
    ]);
    expect(monthsAndDays("2026-01-01", "2026-03-31")).toEqual([{ grain: "month", from: "2026-01", to: "2026-03" }]);
    expect(monthsAndDays()).toEqual([{ grain: "month", from: undefined, to: undefined }]);
  });
});

describe("a file-date range as running totals and days (totalsAndDays, rangePieces)", () => {
  it("reads everything up to the end less everything before the start, each a month's total and the fewer days", () => {
    // A year ending on the 25th: November's total less its five days after the 25th, less the
    // same of the year before.
    expect(totalsAndDays("2025-11-26", "2026-11-25")).toEqual([
      { grain: "total", from: "2026-11", to: "2026-11" },
      { grain: "day", from: "2026-11-26", to: "2026-11-30", subtract: true },
      { grain: "total", from: "2025-11", to: "2025-11", subtract: true },
      { grain: "day", from: "2025-11-26", to: "2025-11-30" },
    ]);
    // Early in a month: the month before's total and the days up to the bound.
    expect(totalsAndDays("2025-03-06", "2026-02-03")).toEqual([
      { grain: "total", from: "2026-01", to: "2026-01" },
      { grain: "day", from: "2026-02-01", to: "2026-02-03" },
      { grain: "total", from: "2025-02", to: "2025-02", subtract: true },
      { grain: "day", from: "2025-03-01", to: "2025-03-05", subtract: true },
    ]);
    // Whole months: two totals; open ends: the latest total, or nothing before.
    expect(totalsAndDays("2025-01-01", "2025-12-31")).toEqual([
      { grain: "total", from: "2025-12", to: "2025-12" },
      { grain: "total", from: "2024-12", to: "2024-12", subtract: true },
    ]);
    expect(totalsAndDays()).toEqual([{ grain: "total" }]);
    expect(totalsAndDays(undefined, "2026-03-31")).toEqual([{ grain: "total", from: "2026-03", to: "2026-03" }]);
    // From the first date there is: nothing to take away (no day before it).
    expect(totalsAndDays("0001-01-01", "1969-12-31")).toEqual([{ grain: "total", from: "1969-12", to: "1969-12" }]);
  });

  it("uses the totals when they read less than months, never when grouped by month or file date", () => {
    const usesTotals = (from: string | undefined, to: string | undefined, groupBy: string[] = ["shop_code", "reason_code"]) =>
      rangePieces(from, to, groupBy as never, "2026-11-27").some((piece) => piece.grain === "total");
    expect(usesTotals("2025-11-26", "2026-11-25")).toBe(true);
    expect(usesTotals("2026-01-01", "2026-04-30")).toBe(true);
    expect(usesTotals(undefined, "2026-11-25")).toBe(true);
    expect(usesTotals("2026-01-01", "2026-02-28")).toBe(false);
    expect(usesTotals("2026-02-10", "2026-02-20")).toBe(false);
    expect(usesTotals("2026-11-01", undefined)).toBe(false);
    expect(usesTotals("2025-11-26", "2026-11-25", ["month", "shop_code"])).toBe(false);
    expect(usesTotals("2025-11-26", "2026-11-25", ["file_date"])).toBe(false);
  });
});
