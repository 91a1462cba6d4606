import { type Kysely, sql } from "kysely";
import { getDb } from "@/lib/data/db";
import type { Dialect } from "@/lib/data/dialect";
import { recordJson } from "@/lib/data/record-json";
import type { Database } from "@/lib/data/schema";
import { inList } from "@/lib/data/sql";
import { worklistPage } from "@/lib/data/worklist";
import { addDays } from "@/lib/domain/calendar";
import { type DeadlineConfig, deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { FIELDS_BY_KIND } from "@/lib/domain/fields";
import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import { formatMinor } from "@/lib/domain/money";
import type { DigestFrequency } from "@/lib/schemas/mail-settings";
import type { WorklistRequest } from "@/lib/schemas/worklist";
import { recordFingerprint, serializeRecordKey } from "@/lib/url-state/record-key";

/**
 * What a message says (docs/mail.md, "What a digest says", "Alerts"), as facts stored with the
 * message (lib/mail/render.ts writes them out when it is sent). Links are dashboard paths; the
 * sender puts APP_URL in front. Counts come from the same queries as the worklist and the
 * searches, so they agree with them for the same shops and dates.
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

/** The highest record id of each kind: where the next digest's "new" starts. */
export async function recordMarks(db: Kysely<Database>): Promise<Record<RecordKind, number>> {
  const marks = {} as Record<RecordKind, number>;
  for (const kind of RECORD_KINDS) {
    const row = await db.selectFrom(KINDS[kind].table).select((eb) => eb.fn.max("id").as("max")).executeTakeFirst();
    marks[kind] = Number(row?.max ?? 0);
  }
  return marks;
}

/** The marks before the first file imported after `createdAt`: a first digest counts from there. */
export async function marksAtCreation(db: Kysely<Database>, createdAt: number, now: Record<RecordKind, number>): Promise<Record<RecordKind, number>> {
  const marks = {} as Record<RecordKind, number>;
  for (const kind of RECORD_KINDS) {
    const row = await db
      .selectFrom("imported_files")
      .select((eb) => eb.fn.min("first_record_id").as("first"))
      .where("kind", "=", kind)
      .where("imported_at", ">", createdAt)
      .executeTakeFirst();
    marks[kind] = row?.first == null ? now[kind] : Number(row.first) - 1;
  }
  return marks;
}

/** The records with ids in (from, to] of the user's shops, per shop and per currency. */
async function newOfKind(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, from: number, to: number, shops: readonly string[]): Promise<NewOfKind> {
  const empty: NewOfKind = { count: 0, shops: [], amounts: [] };
  if (to <= from || shops.length === 0) return empty;
  const table = sql.table(KINDS[kind].table);
  const where = sql`id > ${from} and id <= ${to} and ${inList(dialect, sql`shop_code`, shops)}`;
  const perShop = await sql<{ shop_code: string; n: number | string }>`select shop_code, count(*) as n from ${table} where ${where} group by shop_code`.execute(db);
  const shopCounts = perShop.rows.map((r) => ({ shop_code: r.shop_code, count: Number(r.n) })).sort((a, b) => bytewise(a.shop_code, b.shop_code));
  let amounts: NewOfKind["amounts"];
  if (kind === "chargeback") {
    const rows = await sql<{ ccy: string; amount: number | string | null; reversal_amount: number | string | null }>`select chb_ccy as ccy,
        sum(case when rev_indicator = 'R' then 0 else chb_amount end) as amount,
        sum(case when rev_indicator = 'R' then chb_amount else 0 end) as reversal_amount
      from ${table} where ${where} group by chb_ccy`.execute(db);
    amounts = rows.rows.map((r) => ({ currency: r.ccy, chb_amount: formatMinor(r.amount ?? 0), reversal_amount: formatMinor(r.reversal_amount ?? 0) }));
  } else {
    const rows = await sql<{ ccy: string; amount: number | string | null }>`select ccy, sum(amount) as amount from ${table} where ${where} group by ccy`.execute(db);
    amounts = rows.rows.map((r) => ({ currency: r.ccy, amount: formatMinor(r.amount ?? 0) }));
  }
  amounts.sort((a, b) => bytewise(a.currency, b.currency));
  return { count: shopCounts.reduce((n, s) => n + s.count, 0), shops: shopCounts, amounts };
}

const worklistRequest = (date: string, from: string | undefined, to: string, statuses: WorklistRequest["statuses"], perPage: number): WorklistRequest => ({
  kinds: [...RECORD_KINDS],
  statuses,
  as_of: date,
  ...(from ? { answer_by_from: from } : {}),
  answer_by_to: to,
  page: 0,
  per_page: perPage,
});

/** The disputes that need an answer by 7 days after `date` in the user's shops, as the worklist counts and orders them. */
async function dueFacts(access: readonly string[], date: string, config: DeadlineConfig): Promise<Pick<DigestFacts, "due" | "items" | "due_count">> {
  const at = (n: number) => addDays(date, n)!;
  const [listed, overdue, soon, week] = await Promise.all([
    worklistPage(worklistRequest(date, undefined, at(DUE_BANDS.week[1]), ["due", "overdue"], DIGEST_LISTED), access, config),
    worklistPage(worklistRequest(date, undefined, at(-1), ["overdue"], 1), access, config),
    worklistPage(worklistRequest(date, at(DUE_BANDS.soon[0]), at(DUE_BANDS.soon[1]), ["due"], 1), access, config),
    worklistPage(worklistRequest(date, at(DUE_BANDS.week[0]), at(DUE_BANDS.week[1]), ["due"], 1), access, config),
  ]);
  const items: DigestItem[] = listed.items.map((item) => {
    const row = item.record;
    const chargeback = item.kind === "chargeback";
    return {
      kind: item.kind,
      acq_ref_nr: String(row.acq_ref_nr),
      shop_code: String(row.shop_code),
      amount: formatMinor((chargeback ? row.chb_amount : row.amount) as number),
      currency: String(chargeback ? row.chb_ccy : row.ccy),
      answer_by: item.answerBy,
      status: item.status === "overdue" ? "overdue" : "due",
      link: recordLink(item.kind, row),
    };
  });
  return { due: { overdue: overdue.totalElements, soon: soon.totalElements, week: week.totalElements }, due_count: listed.totalElements, items };
}

/**
 * A digest's facts for a user's shops: the records of kind k with ids in (since[k], upTo[k]] as
 * new, and the disputes due on the user's local `date`.
 */
export async function digestFacts(input: {
  access: readonly string[];
  frequency: Exclude<DigestFrequency, "off">;
  periodAt: number;
  zone: string;
  date: string;
  since: Record<RecordKind, number>;
  upTo: Record<RecordKind, number>;
}): Promise<DigestFacts> {
  const { db, dialect } = await getDb();
  const shops = [...new Set(input.access)];
  const config = deadlineConfigFromEnv();
  const fresh = {} as Record<RecordKind, NewOfKind>;
  for (const kind of RECORD_KINDS) fresh[kind] = await newOfKind(db, dialect, kind, input.since[kind], input.upTo[kind], shops);
  const due = await dueFacts(shops, input.date, config);
  return {
    kind: "digest",
    frequency: input.frequency,
    period_at: input.periodAt,
    zone: input.zone,
    date: input.date,
    new_count: RECORD_KINDS.reduce((n, kind) => n + fresh[kind].count, 0),
    new: fresh,
    ...due,
    worklist_link: "/worklist",
  };
}

/** An alert's facts: a file's records in the user's shops (perShop: the file's records per shop). */
export function alertFacts(kind: RecordKind, fileDate: string, access: readonly string[], perShop: ReadonlyMap<string, number>): AlertFacts | null {
  const shops = [...new Set(access)].filter((code) => perShop.has(code)).sort(bytewise);
  if (shops.length === 0) return null;
  const counts = shops.map((shop_code) => ({ shop_code, count: perShop.get(shop_code)! }));
  return { kind: "alert", record_kind: kind, file_date: fileDate, shops: counts, count: counts.reduce((n, s) => n + s.count, 0), link: fileLink(kind, fileDate, shops) };
}
