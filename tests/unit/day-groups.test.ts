import { describe, expect, it } from "vitest";
import { dayGroupsRow, fromDayGroups } from "@/lib/data/aggregates/day-groups";
import { MAX_GROUPS } from "@/lib/schemas/summary";

/** Each day's groups kept (lib/data/aggregates/day-groups.ts): the day's row, and a range's answer from its days. */
describe("each day's groups kept", () => {
  const group = (i: number) => ({ g: `{"key":{"file_date":"2026-01-0${i % 9}"},"count":2}`, n: 2 });

  it("keep a day's groups joined in order, with their number and records", () => {
    expect(dayGroupsRow([group(1), group(2)])).toEqual({ groups: 2, n: 4, json: `${group(1).g},${group(2).g}` });
    expect(dayGroupsRow([])).toEqual({ groups: 0, n: 0, json: "" });
  });

  it("keep only the number of a day of more than MAX_GROUPS groups", () => {
    const many = Array.from({ length: MAX_GROUPS + 1 }, (_, i) => group(i));
    expect(dayGroupsRow(many)).toEqual({ groups: MAX_GROUPS + 1, n: 2 * (MAX_GROUPS + 1), json: "" });
  });

  it("answer a range from its days, say when it has too many groups, and leave a scope without every shop to the sums", () => {
    const day = (groups: number, n: number, json: string | null) => ({ covers: 1, groups, n, json });
    expect(fromDayGroups([day(2, 4, "a,b"), day(1, 3, "c")])).toEqual({ groups: ["a,b", "c"], total: 7, tooMany: false });
    // No day in the range: the left join's one row of nulls.
    expect(fromDayGroups([{ covers: true, groups: null, n: null, json: null }])).toEqual({ groups: [], total: 0, tooMany: false });
    expect(fromDayGroups([day(MAX_GROUPS, 1, "a"), day(1, 1, "b")])?.tooMany).toBe(true);
    expect(fromDayGroups([day(MAX_GROUPS, 1, "a")])?.tooMany).toBe(false);
    expect(fromDayGroups([{ covers: 0, groups: null, n: null, json: null }])).toBeUndefined();
    expect(fromDayGroups([{ covers: false, groups: null, n: null, json: null }])).toBeUndefined();
  });
});
