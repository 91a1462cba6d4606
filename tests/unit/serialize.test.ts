import { describe, expect, it } from "vitest";
import { pageJson } from "@/lib/api/serialize";
import { PRE_ARBITRATION_FIELDS } from "@/lib/domain/fields";

describe("page serialization", () => {
  it("writes amounts as numbers with two decimals and every field, null where empty", () => {
    const row: Record<string, unknown> = { bank_id: "31", file_date: "2026-01-02", amount: 12050, ccy: "EUR", merchant_decision: null };
    const text = pageJson("pre_arbitration", [row], 1, 1);
    expect(text).toContain('"amount":120.50');
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed.content[0])).toEqual(PRE_ARBITRATION_FIELDS.map((f) => f.name));
    expect(parsed.content[0].card).toBeNull();
    expect(parsed).toMatchObject({ totalPages: 1, totalElements: 1 });
  });

  it("writes doc_indicator 0/1 as numbers and a delivered space as a string", () => {
    const text = (doc: string | null) => pageJson("chargeback", [{ doc_indicator: doc, chb_amount: 0, reason_code: "4837" }], 1, 1);
    expect(text("1")).toContain('"doc_indicator":1,');
    expect(text("0")).toContain('"doc_indicator":0,');
    expect(text(" ")).toContain('"doc_indicator":" ",');
    expect(text(null)).toContain('"doc_indicator":null,');
    expect(text("1")).toContain('"chb_amount":0.00,');
    expect(text("1")).toContain('"reason_code":4837,');
  });

  it("escapes strings", () => {
    const text = pageJson("pre_arbitration", [{ fdl_comments: 'say "hi"\nbye', amount: 1 }], 1, 1);
    expect(JSON.parse(text).content[0].fdl_comments).toBe('say "hi"\nbye');
  });
});
