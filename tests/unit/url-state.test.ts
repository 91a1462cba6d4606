import { describe, expect, it } from "vitest";
import { safeNextPath } from "@/lib/auth/current-user";
import { selectionQuery, toSearchBody, viewParsers } from "@/lib/url-state/dispute-view";
import { parseExportQuery } from "@/lib/url-state/export-query";
import { splitList } from "@/lib/url-state/parsers";
import { parseRecordKey, recordFingerprint } from "@/lib/url-state/record-key";

describe("dashboard URL state", () => {
  const p = viewParsers("chargeback");

  it("parses strictly: no coercion of near-misses", () => {
    expect(p.page.parse("3")).toBe(3);
    expect(p.page.parse("3abc")).toBeNull();
    expect(p.page.parse("0")).toBeNull();
    expect(p.size.parse("9")).toBeNull();
    expect(p.size.parse("1000")).toBe(1000);
    expect(p.size.parse("10.5")).toBeNull();
    expect(p.sort.parse("FILE_DATE")).toBe("FILE_DATE");
    expect(p.sort.parse("file_date")).toBeNull();
    expect(viewParsers("pre_arbitration").sort.parse("FILE_DATE")).toBeNull();
    expect(p.from.parse("2026-02-30")).toBeNull();
    expect(p.arns.parse("A,,B")).toBeNull();
  });

  it("splits pasted lists on newlines, commas, semicolons and spaces", () => {
    expect(splitList("A1 A2,A3\nA4;A5\r\n\tA1")).toEqual(["A1", "A2", "A3", "A4", "A5"]);
  });

  it("turns a view into the API body with a 0-based page", () => {
    expect(toSearchBody("chargeback", { from: "2026-01-01", shops: ["S1"], parent: null, sort: "FILE_DATE", dir: "desc", page: 3, size: 25 }, "2026-11-25")).toEqual({
      file_date_from: "2026-01-01",
      shop_codes: ["S1"],
      sortKey: "FILE_DATE",
      sortOrder: "desc",
      page: 2,
      per_page: 25,
    });
  });

  it("round-trips a view through the export query", () => {
    const query = selectionQuery("chargeback", { from: "2026-01-01", to: "2026-01-31", orders: ["O1", "O2"], sort: "MERCHANT_ID", dir: "desc", page: 4 }, "2026-11-25");
    expect(query).not.toContain("page");
    const parsed = parseExportQuery("chargeback", new URLSearchParams(query));
    expect(parsed).toMatchObject({ ok: true, request: { file_date_from: "2026-01-01", file_date_to: "2026-01-31", payment_order_nrs: ["O1", "O2"], sortKey: "MERCHANT_ID", sortOrder: "desc" } });
  });

  it("keeps a preset as its name and sends the dates it stands for on the user's today", () => {
    expect(p.range.parse("last-30-days")).toBe("last-30-days");
    expect(p.range.parse("Last 30 days")).toBe("last-30-days");
    expect(p.range.parse("last-31-days")).toBeNull();
    const view = { range: "last-month", from: "2020-01-01", sort: "ID", dir: "asc", page: 1, size: 50 };
    expect(toSearchBody("chargeback", view, "2026-03-31", false)).toMatchObject({ file_date_from: "2026-02-01", file_date_to: "2026-02-28" });
    expect(toSearchBody("chargeback", view, "2026-04-01", false)).toMatchObject({ file_date_from: "2026-03-01", file_date_to: "2026-03-31" });
    // The export link carries the dates, which the server could not count in the user's calendar.
    const query = selectionQuery("chargeback", view, "2026-03-31");
    expect(query).not.toContain("range");
    expect(parseExportQuery("chargeback", new URLSearchParams(query))).toMatchObject({ ok: true, request: { file_date_from: "2026-02-01", file_date_to: "2026-02-28" } });
  });

  it("opens the grids on the newest records: chargebacks by file date, cases by import order, both descending", () => {
    expect([p.sort.parse(""), p.sort.defaultValue, p.dir.defaultValue]).toEqual([null, "FILE_DATE", "desc"]);
    const cases = viewParsers("pre_arbitration");
    expect([cases.sort.defaultValue, cases.dir.defaultValue]).toEqual(["ID", "desc"]);
    expect(toSearchBody("pre_arbitration", {}, "2026-11-25")).toMatchObject({ sortKey: "ID", sortOrder: "desc" });
  });

  it("refuses unknown, repeated, invalid and contradictory export parameters", () => {
    const fields = (q: string, kind: "chargeback" | "pre_arbitration" = "chargeback") => {
      const r = parseExportQuery(kind, new URLSearchParams(q));
      return r.ok ? [] : r.errors.map((e) => e.field);
    };
    expect(fields("shop=S1")).toEqual(["shop"]);
    expect(fields("from=2026-01-01&from=2026-01-02")).toEqual(["from"]);
    expect(fields("sort=NAME")).toEqual(["sort"]);
    expect(fields("parent=P1", "pre_arbitration")).toEqual(["parent"]);
    expect(fields("from=2026-02-01&to=2026-01-01")).toEqual(["from"]);
    expect(fields("page=2")).toEqual(["page"]);
    expect(fields("__proto__=x&constructor=y&toString=z")).toEqual(["__proto__", "constructor", "toString"]);
  });

  it("names a record by content, stable and parseable", () => {
    const record = { file_date: "2026-01-02", acq_ref_nr: "7~odd", chb_amount: 12.5 };
    const fp = recordFingerprint(record, ["file_date", "acq_ref_nr", "chb_amount"]);
    expect(fp).toBe(recordFingerprint({ ...record }, ["file_date", "acq_ref_nr", "chb_amount"]));
    expect(fp).not.toBe(recordFingerprint({ ...record, chb_amount: 12.51 }, ["file_date", "acq_ref_nr", "chb_amount"]));
    expect(parseRecordKey(`2026-01-02~${fp}~7~odd`)).toEqual({ fileDate: "2026-01-02", fingerprint: fp, acqRefNr: "7~odd" });
    expect(parseRecordKey("2026-02-30~abc~7")).toBeNull();
  });
});

describe("sign-in return path", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeNextPath("/chargebacks?from=2026-01-01&page=2")).toBe("/chargebacks?from=2026-01-01&page=2");
  });

  it("refuses anything that could leave the site", () => {
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "/login?next=/x", "", "chargebacks", "/\r\nSet-Cookie:x", "/api/export/chargeback"]) {
      expect(safeNextPath(bad), bad).toBe("/worklist");
    }
  });
});
