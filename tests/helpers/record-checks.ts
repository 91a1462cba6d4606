import { sql } from "kysely";
import { expect } from "vitest";
import { dayGroupDims, dayGroupsOf, dayGroupsRow } from "@/lib/data/aggregates/day-groups";
import { recordJson } from "@/lib/data/connection/record-json";
import type { Db } from "@/lib/data/connection/db";
import { RECORD_JSON_TABLES, RECORD_TABLES } from "@/lib/data/connection/schema";
import type { RecordKind } from "@/lib/domain/fields";

/**
 * Checks of the invariants every committed import keeps, against a fresh count of the records:
 * the summaries (record_counts with its running totals, record_shops, record_sums, the disputes),
 * the shop directory, the records' stored JSON (PostgreSQL) and dense ids.
 */

type Count = { kind: string; shop_code: string; file_date: string; n: number | string | bigint };

/** record_counts (n and the running total cum), record_shops and record_sums must equal a fresh count of both record tables. */
export async function expectRecordCountsInStep(db: Db): Promise<void> {
  const summary = await db.db.selectFrom("record_counts").select(["kind", "shop_code", "file_date", "n"]).execute();
  const grouped = await sql<Count>`
    select 'chargeback' as kind, shop_code, file_date, count(*) as n from chargebacks group by shop_code, file_date
    union all
    select 'pre_arbitration' as kind, shop_code, file_date, count(*) as n from pre_arbitrations group by shop_code, file_date`.execute(db.db);
  const key = (r: Count) => `${r.kind}|${r.shop_code}|${r.file_date}|${Number(r.n)}`;
  const expected = grouped.rows.map(key).sort();
  expect(expected.length).toBeGreaterThan(0);
  expect(summary.map(key).sort()).toEqual(expected);

  // Each shop's running total, day by day, and its total of all days.
  const running = new Map<string, number>();
  const cum: string[] = [];
  const perShop = new Map<string, number>();
  for (const r of [...grouped.rows].sort((a, b) => (`${a.kind}|${a.shop_code}|${a.file_date}` < `${b.kind}|${b.shop_code}|${b.file_date}` ? -1 : 1))) {
    const shop = `${r.kind}|${r.shop_code}`;
    running.set(shop, (running.get(shop) ?? 0) + Number(r.n));
    cum.push(`${shop}|${r.file_date}|${running.get(shop)}`);
    perShop.set(shop, running.get(shop)!);
  }
  const storedCum = await sql<{ kind: string; shop_code: string; file_date: string; cum: number | string }>`select kind, shop_code, file_date, cum from record_counts`.execute(db.db);
  expect(storedCum.rows.map((r) => `${r.kind}|${r.shop_code}|${r.file_date}|${Number(r.cum)}`).sort()).toEqual(cum.sort());
  const shops = await db.db.selectFrom("record_shops").select(["kind", "shop_code", "n"]).execute();
  expect(shops.map((r) => `${r.kind}|${r.shop_code}|${Number(r.n)}`).sort()).toEqual([...perShop].map(([shop, n]) => `${shop}|${n}`).sort());
  await expectDisputesInStep(db);
  await expectRecordSumsInStep(db);
  await expectDayGroupsInStep(db);
  await expectRecordJsonInStep(db);
  await expectShopDirectoryInStep(db);
}

/**
 * shop_directory (docs/api.md, "Shop directory") must equal what the records say, worked out
 * here in the test: per shop, the merchant of its last record (by file date, then import order)
 * of either kind, and the parent of its last chargeback.
 */
export async function expectShopDirectoryInStep(db: Db): Promise<void> {
  type Row = { shop_code: string; merchant_id: string | null; merchant_name: string | null; parent_id: string | null; parent_name: string | null; file_date: string; file_id: number | string; id: number | string };
  const { rows } = await sql<Row & { kind: string }>`
    select 'chargeback' as kind, shop_code, merchant_id, merchant_name, parent_mrch_id as parent_id, parent_mrch_name as parent_name, file_date, file_id, id from chargebacks
    union all
    select 'pre_arbitration', shop_code, merchant_id, merchant_name, null, null, file_date, file_id, id from pre_arbitrations`.execute(db.db);
  const later = (a: Row, b: Row) => (a.file_date !== b.file_date ? a.file_date > b.file_date : Number(a.file_id) !== Number(b.file_id) ? Number(a.file_id) > Number(b.file_id) : Number(a.id) > Number(b.id));
  const merchant = new Map<string, Row>();
  const parent = new Map<string, Row>();
  for (const row of rows) {
    const m = merchant.get(row.shop_code);
    if (!m || later(row, m)) merchant.set(row.shop_code, row);
    if (row.kind !== "chargeback") continue;
    const p = parent.get(row.shop_code);
    if (!p || later(row, p)) parent.set(row.shop_code, row);
  }
  const expected = [...merchant.values()].map((m) => {
    const p = parent.get(m.shop_code);
    return [m.shop_code, m.merchant_id || null, m.merchant_name || null, p?.parent_id || null, p?.parent_name || null].join("|");
  });
  const stored = await db.db.selectFrom("shop_directory").select(["shop_code", "merchant_id", "merchant_name", "parent_merchant_id", "parent_merchant_name"]).execute();
  expect(stored.map((r) => [r.shop_code, r.merchant_id, r.merchant_name, r.parent_merchant_id, r.parent_merchant_name].join("|")).sort()).toEqual(expected.sort());
}

/**
 * PostgreSQL (migration 012): every record has exactly one stored JSON text, the one the API's
 * writer (`recordJson`) makes of the record as it is stored, and no text lacks its record.
 * SQLite stores none.
 */
export async function expectRecordJsonInStep(db: Db): Promise<void> {
  if (db.dialect !== "postgres") return;
  for (const [kind, table] of Object.entries(RECORD_TABLES) as [RecordKind, string][]) {
    const { rows: records } = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by id`.execute(db.db);
    const { rows: stored } = await sql<{ record_id: number | string; json: string }>`select record_id, json from ${sql.table(RECORD_JSON_TABLES[kind])} order by record_id`.execute(db.db);
    expect(stored.map((r) => Number(r.record_id))).toEqual(records.map((r) => Number(r.id)));
    const differing = records.filter((r, i) => stored[i].json !== recordJson(kind, r));
    expect(differing.map((r) => r.id)).toEqual([]);
  }
}

type Item = {
  shop_code: string;
  acq_ref_nr: string;
  kind: string;
  id: number | string;
  card: string;
  card_type: string | null;
  function_code: number | string | null;
  rev_indicator: string | null;
  merchant_decision: string | null;
  base_date: string;
};

/**
 * The disputes table and dispute_counts (migration 008) must equal the rules of docs/api.md, "Worklist" worked out afresh
 * from the records: per shop and acq_ref_nr the latest case, else the latest chargeback, and
 * whether it needs an answer, with its stage, scheme and base day.
 */
export async function expectDisputesInStep(db: Db): Promise<void> {
  const current = await sql<Item>`
    select shop_code, acq_ref_nr, kind, id, card, card_type, function_code, rev_indicator, merchant_decision, base_date from (
      select m.*, row_number() over (partition by shop_code, acq_ref_nr order by is_case desc, base_date desc, id desc) as rn from (
        select shop_code, acq_ref_nr, 'chargeback' as kind, 0 as is_case, id, card, card_type, function_code, rev_indicator, merchant_decision, chb_proc_date as base_date from chargebacks
        union all
        select shop_code, acq_ref_nr, 'pre_arbitration' as kind, 1 as is_case, id, card, null, null, null, merchant_decision, case_date from pre_arbitrations
      ) m
    ) r where rn = 1`.execute(db.db);
  const binScheme = (card: string) => {
    const bin = Number(card.slice(0, 6));
    return card.startsWith("4") ? "VISA" : (bin >= 510000 && bin < 560000) || (bin >= 222100 && bin < 272100) ? "MC" : "EITHER";
  };
  const counts = new Map<string, number>();
  const expected = current.rows.map((r) => {
    const fn = r.function_code === null ? null : Number(r.function_code);
    const isCase = r.kind === "pre_arbitration";
    const stage = isCase ? "pre_arbitration" : fn === 450 || fn === 453 ? "first_chargeback" : fn === 451 || fn === 454 ? "arbitration_chargeback" : null;
    const needs = r.merchant_decision === null && r.rev_indicator !== "R" && stage !== null ? 1 : 0;
    const scheme = isCase ? binScheme(r.card) : r.card_type === "MC" || r.card_type === "VISA" ? r.card_type : "EITHER";
    const day = Date.parse(`${r.base_date}T00:00:00Z`) / 86_400_000;
    if (needs) counts.set(`${stage}|${scheme}|${day}`, (counts.get(`${stage}|${scheme}|${day}`) ?? 0) + 1);
    return `${r.shop_code}|${r.acq_ref_nr}|${r.kind}|${Number(r.id)}|${needs}|${stage}|${scheme}|${day}`;
  });
  const stored = await db.db.selectFrom("disputes").selectAll().execute();
  expect(stored.map((d) => `${d.shop_code}|${d.acq_ref_nr}|${d.kind}|${Number(d.record_id)}|${Number(d.needs_answer)}|${d.stage}|${d.scheme}|${Number(d.base_day)}`).sort()).toEqual(expected.sort());
  const storedCounts = await db.db.selectFrom("dispute_counts").selectAll().where("n", "<>", 0).execute();
  expect(storedCounts.map((c) => `${c.stage}|${c.scheme}|${Number(c.base_day)}|${Number(c.n)}`).sort()).toEqual([...counts].map(([key, n]) => `${key}|${n}`).sort());
}

/** The value dimensions of docs/api.md, "Summaries" (and the documents extension), written out here rather than taken from lib/. */
const SUM_DIMENSIONS = {
  chargeback: {
    table: "chargebacks",
    ccy: "chb_ccy",
    amount: "chb_amount",
    dims: ["merchant_id", "card_type", "reason_code", "function_code", "documents"],
    // pairs stored together: dim "a,b", value "<a>\x1f<b>"
    pairs: [
      ["card_type", "reason_code"],
      ["merchant_id", "card_type"],
      ["merchant_id", "reason_code"],
      ["merchant_id", "function_code"],
      ["card_type", "function_code"],
      ["reason_code", "function_code"],
      ["merchant_id", "documents"],
      ["card_type", "documents"],
      ["reason_code", "documents"],
      ["function_code", "documents"],
    ],
  },
  pre_arbitration: { table: "pre_arbitrations", ccy: "ccy", amount: "amount", dims: ["merchant_id", "case_stage"], pairs: [["merchant_id", "case_stage"]] },
} as const;

/**
 * record_sums must equal the records added up here, in BigInt: per kind, dimension ("" and each
 * value dimension, each stored pair), grain (day and month, every month; and the running totals,
 * densely), shop (each, and "" for all) and currency.
 */
export async function expectRecordSumsInStep(db: Db): Promise<void> {
  const expected = new Map<string, bigint[]>();
  for (const [kind, t] of Object.entries(SUM_DIMENSIONS)) {
    const columns = sql.join(
      [...new Set(["shop_code", "file_date", "rev_indicator", "doc_indicator", t.ccy, t.amount, ...t.dims.filter((d) => d !== "documents")])]
        .filter((c) => kind === "chargeback" || (c !== "rev_indicator" && c !== "doc_indicator"))
        .map((c) => sql.ref(c)),
    );
    const { rows } = await sql<Record<string, string | number | null>>`select ${columns} from ${sql.table(t.table)}`.execute(db.db);
    for (const row of rows) {
      const reversal = row.rev_indicator === "R";
      const amount = BigInt(row[t.amount] as number);
      const add = [1n, reversal ? 1n : 0n, reversal ? 0n : amount, reversal ? amount : 0n];
      const day = String(row.file_date);
      const valueOf = (d: string) => (d === "documents" ? (String(row.doc_indicator) === "1" ? "yes" : "no") : String(row[d]));
      const pairs = (t.pairs as readonly (readonly [string, string])[]).map(([a, b]) => [`${a},${b}`, `${valueOf(a)}\x1f${valueOf(b)}`]);
      for (const [dim, value] of [["", ""], ...t.dims.map((d) => [d, valueOf(d)]), ...pairs]) {
        for (const [grain, period] of [["day", day], ["month", day.slice(0, 7)]]) {
          for (const shop of [String(row.shop_code), ""]) {
            const key = [kind, dim, grain, shop, period, value, row[t.ccy]].join("|");
            const sums = expected.get(key) ?? [0n, 0n, 0n, 0n];
            expected.set(key, sums.map((s, i) => s + add[i]));
          }
        }
      }
    }
  }
  // Running totals: every key at every month from the kind's first month with records to its
  // latest, once it has a record, holding the sums of its months up to then.
  const monthly = [...expected].filter(([key]) => key.split("|")[2] === "month");
  const nextMonth = (m: string) => (m.endsWith("-12") ? `${Number(m.slice(0, 4)) + 1}-01` : `${m.slice(0, 5)}${String(Number(m.slice(5)) + 1).padStart(2, "0")}`);
  for (const kind of Object.keys(SUM_DIMENSIONS)) {
    const months = monthly.filter(([key]) => key.startsWith(`${kind}|`)).map(([key]) => key.split("|")[4]).sort();
    if (!months.length) continue;
    const byMonth = new Map<string, [string, bigint[]][]>();
    for (const entry of monthly.filter(([key]) => key.startsWith(`${kind}|`))) {
      const month = entry[0].split("|")[4];
      byMonth.set(month, [...(byMonth.get(month) ?? []), entry]);
    }
    const totals = new Map<string, bigint[]>();
    for (let month = months[0]; month <= months.at(-1)!; month = nextMonth(month)) {
      for (const [key, sums] of byMonth.get(month) ?? []) {
        const [, dim, , shop, , value, ccy] = key.split("|");
        const id = [dim, shop, value, ccy].join("|");
        totals.set(id, (totals.get(id) ?? [0n, 0n, 0n, 0n]).map((s, i) => s + sums[i]));
      }
      for (const [id, sums] of totals) {
        const [dim, shop, value, ccy] = id.split("|");
        expected.set([kind, dim, "total", shop, month, value, ccy].join("|"), sums);
      }
    }
  }
  const { rows: stored } = await sql<Record<string, string | number>>`select kind, dim, grain, shop_code, period, value, ccy,
    cast(n as text) as n, cast(reversals as text) as reversals, cast(amount as text) as amount, cast(reversal_amount as text) as reversal_amount from record_sums`.execute(db.db);
  const storedLines = stored.map((r) => [r.kind, r.dim, r.grain, r.shop_code, r.period, r.value, r.ccy, r.n, r.reversals, r.amount, r.reversal_amount].join("|")).sort();
  expect(storedLines).toEqual([...expected].map(([key, sums]) => [key, ...sums].join("|")).sort());
}

/**
 * record_day_groups (lib/data/aggregates/day-groups.ts) must hold, for every day with records of a
 * kind and every dim kept, what the import writes for that day from record_sums now (which
 * expectRecordSumsInStep checks against the records), and nothing for any other day.
 */
export async function expectDayGroupsInStep(db: Db): Promise<void> {
  const { rows: kept } = await sql<{ kind: string; dim: string; period: string; groups: number; n: number; json: string }>`select * from record_day_groups`.execute(db.db);
  for (const [kind, t] of Object.entries(SUM_DIMENSIONS) as [RecordKind, (typeof SUM_DIMENSIONS)[RecordKind]][]) {
    const { rows } = await sql<{ file_date: string }>`select distinct file_date from ${sql.table(t.table)} order by file_date`.execute(db.db);
    const days = rows.map((r) => r.file_date);
    for (const dim of dayGroupDims(kind)) {
      const of = kept.filter((r) => r.kind === kind && r.dim === dim).sort((a, b) => (a.period < b.period ? -1 : 1));
      expect(of.map((r) => r.period), `${kind} ${dim}`).toEqual(days);
      for (const row of of) {
        const fresh = dayGroupsRow((await dayGroupsOf(db.dialect, kind, dim, row.period).execute(db.db)).rows);
        expect({ groups: Number(row.groups), n: Number(row.n), json: row.json }, `${kind} ${dim} ${row.period}`).toEqual(fresh);
      }
    }
  }
}

/** Ids are 1..N in both record tables: the largest id is the number of records. */
export async function expectDenseIds(db: Db): Promise<void> {
  for (const t of ["chargebacks", "pre_arbitrations"] as const) {
    const r = await db.db.selectFrom(t).select((eb) => [eb.fn.countAll().as("n"), eb.fn.max("id").as("max")]).executeTakeFirstOrThrow();
    expect(Number(r.max ?? 0), t).toBe(Number(r.n));
  }
}
