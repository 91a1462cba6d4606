import type { MailSettings } from "@/lib/schemas/mail-settings";

/**
 * When a digest is due (docs/mail.md, "When a digest is due"): at the user's time of day in their
 * zone (weekly: on a Monday), the first such moment after the later of the user's creation and
 * their previous digest; missed periods are not caught up. A time that a daylight-saving change
 * skips means the first moment after the gap; a time that happens twice counts once (the first).
 */

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formats.set(zone, f);
  }
  return f;
}

/** The wall-clock reading of an instant in a zone, as if it were UTC (epoch ms). */
function wallClock(zone: string, instant: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatOf(zone).formatToParts(new Date(instant))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's offset from UTC at an instant, in ms, to the minute. */
const offsetAt = (zone: string, instant: number) => wallClock(zone, Math.floor(instant / MINUTE_MS) * MINUTE_MS) - Math.floor(instant / MINUTE_MS) * MINUTE_MS;

/** "YYYY-MM-DD" of an instant in a zone. */
export function localDate(zone: string, instant: number): string {
  return new Date(wallClock(zone, instant)).toISOString().slice(0, 10);
}

/**
 * The instant a zone's clocks read `minutes` past midnight on the day `dayStart` (a UTC midnight
 * naming the local date). Twice-read: the first. Skipped: the first moment after the gap.
 */
export function instantOfLocal(zone: string, dayStart: number, minutes: number): number {
  const wall = dayStart + minutes * MINUTE_MS;
  // Offsets change at most once around a given day: the ones half a day either side cover it.
  const offsets = [...new Set([offsetAt(zone, wall - DAY_MS / 2), offsetAt(zone, wall + DAY_MS / 2)])];
  const matches = offsets.map((o) => wall - o).filter((t) => wallClock(zone, t) === wall);
  if (matches.length > 0) return Math.min(...matches);
  // In a gap: the transition, the first minute whose wall clock is past the wanted time.
  let lo = Math.min(...offsets.map((o) => wall - o));
  let hi = Math.max(...offsets.map((o) => wall - o));
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (wallClock(zone, mid) > wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

const minutesOf = (at: string) => Number(at.slice(0, 2)) * 60 + Number(at.slice(3, 5));

/**
 * The scheduled instants of the local days from `at`'s day, 8 days (a week and a gap) back
 * (step -1, latest first) or ahead (step 1, earliest first), each with its local day (a UTC midnight).
 */
function slots(settings: MailSettings, at: number, step: -1 | 1): { day: number; at: number }[] {
  const today = Date.parse(`${localDate(settings.zone, at)}T00:00:00Z`);
  const found: { day: number; at: number }[] = [];
  for (let n = 0; n <= 8; n++) {
    const day = today + step * n * DAY_MS;
    // Weekly digests come on Mondays (getUTCDay of the local date's UTC midnight: 1).
    if (settings.digest === "weekly" && new Date(day).getUTCDay() !== 1) continue;
    found.push({ day, at: instantOfLocal(settings.zone, day, minutesOf(settings.at)) });
  }
  return found;
}

/**
 * The period due at `at`: the latest scheduled instant at or before `at` that is after `since`
 * (the later of the user's creation and their previous digest's period), or null.
 */
export function duePeriod(settings: MailSettings, since: number, at: number): number | null {
  if (settings.digest === "off") return null;
  const latest = slots(settings, at, -1).find((slot) => slot.at <= at)?.at;
  return latest !== undefined && latest > since ? latest : null;
}

/** The next scheduled instant after `now` and its local day (a UTC midnight), or null when digests are off. */
export function nextSlot(settings: MailSettings, now: number): { day: number; at: number } | null {
  if (settings.digest === "off") return null;
  return slots(settings, now, 1).find((slot) => slot.at > now) ?? null;
}
