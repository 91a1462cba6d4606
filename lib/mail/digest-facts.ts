import { type Kysely, sql } from "kysely";
import { getDb } from "@/lib/data/connection/db";
import type { Dialect } from "@/lib/data/connection/dialect";
import type { Database } from "@/lib/data/connection/schema";
import { inList } from "@/lib/data/connection/sql";
import { worklistPage } from "@/lib/data/queries/worklist";
import { addDays } from "@/lib/domain/calendar";
import { type DeadlineConfig, deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import { formatMinor } from "@/lib/domain/money";
import type { DigestFrequency } from "@/lib/schemas/mail-settings";
import type { WorklistRequest } from "@/lib/schemas/worklist";
import { DIGEST_LISTED, type DigestFacts, type DigestItem, DUE_BANDS, type NewOfKind, recordLink } from "./facts";

/**
 * A digest's facts (docs/mail.md, "What a digest says"). The due disputes come from the worklist's
 * own query (lib/data/queries/worklist.ts) and the new records from the records themselves, so the counts
 * agree with the worklist and the searches for the same shops and dates. Server side only.
 */

const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

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

