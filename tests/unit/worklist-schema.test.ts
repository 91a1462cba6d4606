import { describe, expect, it } from "vitest";
import { parseWorklistRequest } from "@/lib/schemas/worklist";

describe("worklist request parsing", () => {
  it("applies the defaults: both kinds, page 0, 10 a page", () => {
    const defaults = { kinds: ["chargeback", "pre_arbitration"], statuses: ["due", "overdue"], as_of: "2026-11-25", page: 0, per_page: 10 };
    expect(parseWorklistRequest({}, "2026-11-25")).toEqual({ ok: true, request: defaults });
    expect(parseWorklistRequest({ kinds: [], statuses: [], as_of: null, shop_codes: null, answer_by_from: null }, "2026-11-25")).toEqual({ ok: true, request: defaults });
    // Without a date of its own, a request is counted on the server's date in UTC.
    expect((parseWorklistRequest({}) as { request: { as_of: string } }).request.as_of).toBe(new Date().toISOString().slice(0, 10));
  });

  it("keeps what it was given, kinds once each", () => {
    const parsed = parseWorklistRequest({
      shop_codes: ["a"],
      kinds: ["pre_arbitration", "pre_arbitration"],
      statuses: ["expired", "due", "expired"],
      as_of: "2026-03-01",
      answer_by_from: "2026-01-01",
      answer_by_to: "2026-01-01",
      expiry_from: "2026-02-01",
      expiry_to: "2026-02-28",
      page: 3,
      per_page: 1000,
    });
    expect(parsed).toEqual({
      ok: true,
      request: { shop_codes: ["a"], kinds: ["pre_arbitration"], statuses: ["due", "expired"], as_of: "2026-03-01", answer_by_from: "2026-01-01", answer_by_to: "2026-01-01", expiry_from: "2026-02-01", expiry_to: "2026-02-28", page: 3, per_page: 1000 },
    });
  });

  it("refuses what the searches refuse, naming each field", () => {
    const fields = (body: unknown) => {
      const parsed = parseWorklistRequest(body);
      return parsed.ok ? [] : parsed.errors.map((e) => e.field);
    };
    expect(fields({ kinds: ["chargeback", "CHARGEBACK"] })).toEqual(["kinds[1]"]);
    expect(fields({ kinds: "chargeback" })).toEqual(["kinds"]);
    expect(fields({ statuses: ["overdue", "Expired"] })).toEqual(["statuses[1]"]);
    expect(fields({ as_of: "2026-13-01" })).toEqual(["as_of"]);
    expect(fields({ expiry_from: "2026-03-02", expiry_to: "2026-03-01" })).toEqual(["expiry_from"]);
    expect(fields({ answer_by_from: "2026-02-30" })).toEqual(["answer_by_from"]);
    expect(fields({ answer_by_from: "2026-03-02", answer_by_to: "2026-03-01" })).toEqual(["answer_by_from"]);
    expect(fields({ per_page: 9, page: -1 }).sort()).toEqual(["page", "per_page"]);
    expect(fields({ per_page: "10" })).toEqual(["per_page"]);
    expect(fields({ shop_codes: ["ok", ""] })).toEqual(["shop_codes[1]"]);
    expect(fields({ kind: ["chargeback"], sortKey: "ID" }).sort()).toEqual(["kind", "sortKey"]);
    expect(fields([])).toEqual([""]);
  });
});
