import { createParser } from "nuqs/server";
import { isCalendarDate } from "@/lib/schemas/search";

/**
 * A record has no id in the API response, so the URL names it by content:
 * `<file_date>~<fingerprint>~<acq_ref_nr>`. The file date and the acquirer reference number let
 * the drawer fetch the record on its own (POST with acq_ref_nrs and a one-day file date range,
 * inside the user's scope), whatever page, filter or sort is active; the fingerprint (a hash of
 * every field) picks the exact record among the few that share both. A loaded file never changes
 * (docs/api.md, "Import of acquirer files": a file loads whole, a changed resend is refused), so the key stays valid for good,
 * unlike a page position that shifts with every import, filter or sort.
 */
export interface RecordKey {
  fileDate: string;
  fingerprint: string;
  acqRefNr: string;
}

export function serializeRecordKey(key: RecordKey): string {
  return `${key.fileDate}~${key.fingerprint}~${key.acqRefNr}`;
}

export function parseRecordKey(value: string): RecordKey | null {
  const m = /^(\d{4}-\d{2}-\d{2})~([0-9a-z]{1,13})~(.{1,100})$/s.exec(value);
  if (!m || !isCalendarDate(m[1])) return null;
  return { fileDate: m[1], fingerprint: m[2], acqRefNr: m[3] };
}

export const parseAsRecordKey = createParser<RecordKey>({
  parse: parseRecordKey,
  serialize: serializeRecordKey,
  eq: (a, b) => serializeRecordKey(a) === serializeRecordKey(b),
});

/** FNV-1a (32 bit) over the record's fields in their fixed order: short, stable, no crypto needed. */
export function recordFingerprint(record: Record<string, unknown>, fieldNames: readonly string[]): string {
  let hash = 0x811c9dc5;
  const text = fieldNames.map((name) => JSON.stringify(record[name] ?? null)).join("\u0001");
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
