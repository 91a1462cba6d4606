import { describe, expect, it } from "vitest";
import { fieldPath, isCalendarDate, parseSearchRequest } from "@/lib/schemas/search";

describe("search request parsing", () => {
  it("applies the defaults and drops nulls and empty arrays", () => {
    expect(parseSearchRequest("chargeback", { merchant_id: null, acq_ref_nrs: [] })).toEqual({
      ok: true,
      request: { page: 0, per_page: 10, sortKey: "ID", sortOrder: "asc" },
    });
  });

  it("keeps the filters it was given", () => {
    const parsed = parseSearchRequest("pre_arbitration", { payment_ids: ["a"], page: 2, per_page: 1000, sortKey: "SHOP_CODE", sortOrder: "desc" });
    expect(parsed).toEqual({ ok: true, request: { payment_ids: ["a"], page: 2, per_page: 1000, sortKey: "SHOP_CODE", sortOrder: "desc" } });
  });

  it("names unknown fields by their own name", () => {
    const parsed = parseSearchRequest("pre_arbitration", { file_date: "2026-01-01", transaction_ids: ["x"] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => e.field).sort()).toEqual(["file_date", "transaction_ids"]);
  });

  it("knows real calendar dates", () => {
    expect(isCalendarDate("2024-02-29")).toBe(true);
    expect(isCalendarDate("2026-02-29")).toBe(false);
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("2026-1-01")).toBe(false);
    // The first century is as real as any other; there is no year 0.
    expect(isCalendarDate("0099-12-31")).toBe(true);
    expect(isCalendarDate("0004-02-29")).toBe(true);
    expect(isCalendarDate("0001-02-29")).toBe(false);
    expect(isCalendarDate("0000-01-01")).toBe(false);
    expect(isCalendarDate("9999-12-31")).toBe(true);
  });

  it("writes JSON paths with indexes in brackets", () => {
    expect(fieldPath(["shop_codes", 2])).toBe("shop_codes[2]");
    expect(fieldPath([])).toBe("");
    expect(fieldPath(["a", "b", 0])).toBe("a.b[0]");
  });
});
