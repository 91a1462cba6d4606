import { recordJson } from "@/lib/data/connection/record-json";
import { FIELDS_BY_KIND } from "@/lib/domain/fields";
import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import type { DigestFrequency } from "@/lib/schemas/mail-settings";
import { recordFingerprint, serializeRecordKey } from "@/lib/url-state/record-key";

/**
 * What a message says (docs/mail.md, "What a digest says", "Alerts"), as facts stored with the
 * message (lib/mail/render.ts writes them out when it is sent). Links are dashboard paths; the
 * sender puts APP_URL in front. A digest's facts are gathered in digest-facts.ts.
 */

/** At most this many disputes are listed in a digest. */
export const DIGEST_LISTED = 20;

/** The two look-ahead bands of "due": today to 2 days ahead, 3 to 7 days ahead. */
export const DUE_BANDS = { soon: [0, 2], week: [3, 7] } as const;

export interface NewOfKind {
  count: number;
  shops: { shop_code: string; count: number }[];
  /** chargebacks: chb_amount of non-reversals and reversal_amount apart; cases: amount */
  amounts: { currency: string; chb_amount?: string; reversal_amount?: string; amount?: string }[];
}

export interface DigestItem {
  kind: RecordKind;
  acq_ref_nr: string;
  shop_code: string;
  amount: string;
  currency: string;
  answer_by: string;
  status: "due" | "overdue";
  link: string;
}

export interface DigestFacts {
  kind: "digest";
  frequency: Exclude<DigestFrequency, "off">;
  /** the period's scheduled instant (epoch ms) and the user's local date then */
  period_at: number;
  zone: string;
  date: string;
  new_count: number;
  due_count: number;
  new: Record<RecordKind, NewOfKind>;
  due: { overdue: number; soon: number; week: number };
  items: DigestItem[];
  worklist_link: string;
}

export interface AlertFacts {
  kind: "alert";
  record_kind: RecordKind;
  file_date: string;
  shops: { shop_code: string; count: number }[];
  count: number;
  link: string;
}

export type MessageFacts = DigestFacts | AlertFacts;

const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

const FIELD_NAMES = Object.fromEntries(RECORD_KINDS.map((kind) => [kind, FIELDS_BY_KIND[kind].map((d) => d.name)])) as Record<RecordKind, string[]>;

/** The dashboard path that opens a record in its grid's drawer (lib/url-state/record-key.ts). */
export function recordLink(kind: RecordKind, row: Record<string, unknown>): string {
  const record = JSON.parse(recordJson(kind, row)) as Record<string, unknown>;
  const key = serializeRecordKey({ fileDate: String(record.file_date), acqRefNr: String(record.acq_ref_nr), fingerprint: recordFingerprint(record, FIELD_NAMES[kind]) });
  return `${KINDS[kind].pagePath}?${new URLSearchParams({ open: key })}`;
}

/** The dashboard path of a grid showing one file date's records of some shops. */
export function fileLink(kind: RecordKind, fileDate: string, shops: readonly string[]): string {
  return `${KINDS[kind].pagePath}?${new URLSearchParams({ from: fileDate, to: fileDate, shops: shops.join(",") })}`;
}

/** An alert's facts: a file's records in the user's shops (perShop: the file's records per shop). */
export function alertFacts(kind: RecordKind, fileDate: string, access: readonly string[], perShop: ReadonlyMap<string, number>): AlertFacts | null {
  const shops = [...new Set(access)].filter((code) => perShop.has(code)).sort(bytewise);
  if (shops.length === 0) return null;
  const counts = shops.map((shop_code) => ({ shop_code, count: perShop.get(shop_code)! }));
  return { kind: "alert", record_kind: kind, file_date: fileDate, shops: counts, count: counts.reduce((n, s) => n + s.count, 0), link: fileLink(kind, fileDate, shops) };
}
