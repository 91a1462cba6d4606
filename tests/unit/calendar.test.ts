import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, dateOfDay, dayNumber, daysBetween, lastDayOfMonth, localToday, shiftMonth, utcToday } from "@/lib/domain/calendar";

/** lib/domain/calendar.ts against JavaScript's own proleptic Gregorian calendar and fixed facts. */

const pad = (n: number, w: number) => String(n).padStart(w, "0");
const dateArb = fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
});

describe("calendar dates", () => {
  it("numbers every date of the years 0001 to 9999 and back, the years below 100 too", () => {
    fc.assert(fc.property(dateArb, (date) => dateOfDay(dayNumber(date)!) === date));
    expect(dayNumber("1970-01-01")).toBe(0);
    expect(addDays("0050-02-28", 1)).toBe("0050-03-01");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2100-02-28", 1)).toBe("2100-03-01");
  });

  it("shifts and measures consistently", () => {
    fc.assert(
      fc.property(dateArb, fc.integer({ min: -4000, max: 4000 }), (date, n) => {
        const moved = addDays(date, n)!;
        if (dayNumber(moved) === undefined) return true;
        return addDays(moved, -n) === date && daysBetween(date, moved) === n && (n >= 0 ? moved >= date : moved < date);
      }),
    );
  });

  it("refuses what is not a real date", () => {
    for (const bad of ["2026-02-29", "2026-13-01", "0000-01-01", "2026-1-01", "20260101", ""]) {
      expect(dayNumber(bad), bad).toBeUndefined();
      expect(addDays(bad, 1), bad).toBeUndefined();
    }
    // Below year 1 a shifted date still sorts before every accepted one.
    expect(addDays("0001-01-01", -1)! < "0001-01-01").toBe(true);
  });

  it("knows months: their last days and their neighbours", () => {
    expect(lastDayOfMonth("2024-02")).toBe("2024-02-29");
    expect(lastDayOfMonth("2026-02")).toBe("2026-02-28");
    expect(lastDayOfMonth("2026-12")).toBe("2026-12-31");
    expect(shiftMonth("2026-12", 1)).toBe("2027-01");
    expect(shiftMonth("2026-01", -1)).toBe("2025-12");
    expect(shiftMonth("2026-05", -12)).toBe("2025-05");
    expect(shiftMonth("0001-01", -1)).toBeUndefined();
    expect(shiftMonth("9999-12", 1)).toBeUndefined();
  });

  it("tells today in UTC and where the user is", () => {
    const at = new Date("2026-11-25T23:30:00Z");
    expect(utcToday(at)).toBe("2026-11-25");
    const local = new Date(at.getTime());
    expect(localToday(local)).toBe(`${pad(local.getFullYear(), 4)}-${pad(local.getMonth() + 1, 2)}-${pad(local.getDate(), 2)}`);
  });
});
