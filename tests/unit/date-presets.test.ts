import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, dateOfDay, dayNumber, daysBetween } from "@/lib/domain/calendar";
import { DATE_PRESETS, parseDatePreset, presetRange } from "@/lib/domain/date-presets";

const range = (slug: Parameters<typeof presetRange>[0], today: string) => presetRange(slug, today);

describe("date presets", () => {
  it("names exactly the ten presets of the issue, in order", () => {
    expect(DATE_PRESETS.map((p) => p.label)).toEqual([
      "Today",
      "Yesterday",
      "Last 7 days",
      "Last 30 days",
      "This month",
      "Last month",
      "This quarter",
      "Last quarter",
      "Year to date",
      "Last 12 months",
    ]);
    for (const p of DATE_PRESETS) {
      expect(parseDatePreset(p.slug)).toBe(p.slug);
      expect(parseDatePreset(p.label)).toBe(p.slug);
    }
    expect(parseDatePreset("last-6-days")).toBeNull();
  });

  it("counts each preset from a fixed today", () => {
    const today = "2026-05-15";
    expect(range("today", today)).toEqual({ from: "2026-05-15", to: "2026-05-15" });
    expect(range("yesterday", today)).toEqual({ from: "2026-05-14", to: "2026-05-14" });
    expect(range("last-7-days", today)).toEqual({ from: "2026-05-09", to: "2026-05-15" });
    expect(range("last-30-days", today)).toEqual({ from: "2026-04-16", to: "2026-05-15" });
    expect(range("this-month", today)).toEqual({ from: "2026-05-01", to: "2026-05-15" });
    expect(range("last-month", today)).toEqual({ from: "2026-04-01", to: "2026-04-30" });
    expect(range("this-quarter", today)).toEqual({ from: "2026-04-01", to: "2026-05-15" });
    expect(range("last-quarter", today)).toEqual({ from: "2026-01-01", to: "2026-03-31" });
    expect(range("year-to-date", today)).toEqual({ from: "2026-01-01", to: "2026-05-15" });
    expect(range("last-12-months", today)).toEqual({ from: "2025-05-16", to: "2026-05-15" });
  });

  it("crosses years and leap days", () => {
    expect(range("yesterday", "2026-01-01")).toEqual({ from: "2025-12-31", to: "2025-12-31" });
    expect(range("last-month", "2026-01-10")).toEqual({ from: "2025-12-01", to: "2025-12-31" });
    expect(range("last-quarter", "2026-02-10")).toEqual({ from: "2025-10-01", to: "2025-12-31" });
    expect(range("last-month", "2028-03-31")).toEqual({ from: "2028-02-01", to: "2028-02-29" });
    expect(range("last-12-months", "2028-02-29")).toEqual({ from: "2027-03-01", to: "2028-02-29" });
    expect(range("last-12-months", "2029-03-01")).toEqual({ from: "2028-03-02", to: "2029-03-01" });
  });

  it("every range is real, ordered, ends today or earlier and holds what its name says", () => {
    const days = fc.integer({ min: dayNumber("1990-01-01")!, max: dayNumber("2100-12-31")! });
    fc.assert(
      fc.property(days, (n) => {
        const today = dateOfDay(n);
        for (const { slug } of DATE_PRESETS) {
          const r = range(slug, today)!;
          expect(dayNumber(r.from)).toBeDefined();
          expect(dayNumber(r.to)).toBeDefined();
          expect(r.from <= r.to).toBe(true);
          expect(r.to <= today).toBe(true);
        }
        expect(daysBetween(range("last-7-days", today)!.from, today)).toBe(6);
        expect(daysBetween(range("last-30-days", today)!.from, today)).toBe(29);
        // Last month ends the day before this month starts; last quarter the day before this one.
        expect(addDays(range("last-month", today)!.to, 1)).toBe(range("this-month", today)!.from);
        expect(addDays(range("last-quarter", today)!.to, 1)).toBe(range("this-quarter", today)!.from);
        expect(Number(range("this-quarter", today)!.from.slice(5, 7)) % 3).toBe(1);
        const year = range("last-12-months", today)!;
        const span = daysBetween(year.from, year.to)! + 1;
        expect(span === 365 || span === 366).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
