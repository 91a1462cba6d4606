import { type Kysely, sql } from "kysely";
import { type CurrentItem, dayNumber, disputeState } from "@/lib/domain/deadlines";
import type { RecordKind } from "@/lib/domain/fields";
import type { Dialect } from "./migrations";
import { type Database, RECORD_TABLES } from "./schema";

/**
 * The disputes table (CONTRACT 10): per shop and acq_ref_nr, the current item and whether it waits
 * for the merchant's answer, with what its answer-by date is counted from (stage, scheme, base
 * day). Nothing here depends on the configured windows, so a change of DEADLINE_DAYS_* needs no
 * rebuild: the worklist adds the windows at query time (lib/data/worklist.ts). dispute_counts
 * holds the disputes that need an answer per stage, scheme and base day, for exact totals of a
 * scope that covers every shop without counting rows.
 */

/** The scheme of a case whose BIN names neither: the earlier of both windows applies. */
export const EITHER_SCHEME = "EITHER";

/** Records per round of the refresh: a million-record file is refreshed in bounded steps. */
const CHUNK_IDS = 20_000;

interface StateRow {
  shop_code: string;
  acq_ref_nr: string;
  old_kind: string | null;
  old_id: number | null;
  old_needs: number | null;
  old_stage: string | null;
  old_scheme: string | null;
  old_day: number | null;
  pa_id: number | null;
  card: string | null;
  case_date: string | null;
  pa_decision: string | null;
  cb_id: number | null;
  card_type: string | null;
  function_code: number | null;
  rev_indicator: string | null;
  chb_proc_date: string | null;
  cb_decision: string | null;
}

type DisputeValues = [shop: string, acqRef: string, kind: RecordKind, recordId: number, needs: 0 | 1, stage: string | null, scheme: string, baseDay: number | null];

/**
 * Brings the disputes of the records `firstId`..`lastId` of a kind up to date: for each (shop,
 * acq_ref_nr) they name, the current item is found again among all records of both kinds. Call
 * it in the import's transaction after a file's rows are written, so that the disputes and the
 * records commit together. Idempotent: running it twice changes nothing the second time.
 */
export async function refreshDisputes(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, firstId: number, lastId: number): Promise<void> {
  for (let from = firstId; from <= lastId; from += CHUNK_IDS) {
    await refreshChunk(db, dialect, kind, from, Math.min(lastId, from + CHUNK_IDS - 1));
  }
}

/** Builds the disputes of every record there is (migration 008, for databases that hold records). */
export async function rebuildDisputes(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    const max = await db.selectFrom(RECORD_TABLES[kind]).select((eb) => eb.fn.max("id").as("max")).executeTakeFirst();
    await refreshDisputes(db, dialect, kind, 1, Number(max?.max ?? 0));
  }
}

async function refreshChunk(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, from: number, to: number): Promise<void> {
  // The current item: the latest case (case_date, then id), else the latest chargeback message.
  // Both are looked up by acq_ref_nr, a handful of records; SQLite, left to itself, took the
  // shop's index and read every case of the shop for each dispute. The lookups are materialized
  // so that each runs once per dispute (SQLite otherwise repeated the case's for the join below).
  const byRef = (index: string) => (dialect === "sqlite" ? sql` indexed by ${sql.id(index)}` : sql``);
  const { rows } = await sql<StateRow>`
    with x as materialized (
      select k.shop_code, k.acq_ref_nr,
        (select p.id from pre_arbitrations p${byRef("ix_pa_acq_ref")} where p.acq_ref_nr = k.acq_ref_nr and p.shop_code = k.shop_code
          order by p.case_date desc, p.id desc limit 1) as pa_id,
        (select c.id from chargebacks c${byRef("ix_cb_acq_ref")} where c.acq_ref_nr = k.acq_ref_nr and c.shop_code = k.shop_code
          order by c.chb_proc_date desc, c.id desc limit 1) as cb_id
      from (select distinct shop_code, acq_ref_nr from ${sql.table(RECORD_TABLES[kind])} where id >= ${from} and id <= ${to}) k
    )
    select x.shop_code, x.acq_ref_nr,
      d.kind as old_kind, d.record_id as old_id, d.needs_answer as old_needs, d.stage as old_stage, d.scheme as old_scheme, d.base_day as old_day,
      pa.id as pa_id, pa.card, pa.case_date, pa.merchant_decision as pa_decision,
      cb.id as cb_id, cb.card_type, cb.function_code, cb.rev_indicator, cb.chb_proc_date, cb.merchant_decision as cb_decision
    from x
    left join disputes d on d.shop_code = x.shop_code and d.acq_ref_nr = x.acq_ref_nr
    left join pre_arbitrations pa on pa.id = x.pa_id
    left join chargebacks cb on cb.id = x.cb_id and x.pa_id is null`.execute(db);

  const changed: DisputeValues[] = [];
  const deltas = new Map<string, number>();
  const count = (stage: string | null, scheme: string | null, day: number | null, delta: number) => {
    const key = JSON.stringify([stage, scheme, day]);
    deltas.set(key, (deltas.get(key) ?? 0) + delta);
  };
  for (const row of rows) {
    const item: CurrentItem | undefined =
      row.pa_id !== null
        ? { kind: "pre_arbitration", card: row.card, case_date: row.case_date, merchant_decision: row.pa_decision }
        : row.cb_id !== null
          ? { kind: "chargeback", card_type: row.card_type, function_code: row.function_code, rev_indicator: row.rev_indicator, chb_proc_date: row.chb_proc_date, merchant_decision: row.cb_decision }
          : undefined;
    if (!item) continue;
    const recordId = Number(item.kind === "pre_arbitration" ? row.pa_id : row.cb_id);
    // Records never change, so a dispute's state changes only with its current item.
    if (row.old_kind === item.kind && Number(row.old_id) === recordId) continue;
    const state = disputeState(item);
    const baseDay = state.baseDate ? (dayNumber(state.baseDate) ?? null) : null;
    const needs = state.needsAnswer && state.stage !== null && baseDay !== null ? 1 : 0;
    const scheme = state.scheme ?? EITHER_SCHEME;
    changed.push([row.shop_code, row.acq_ref_nr, item.kind, recordId, needs, state.stage, scheme, baseDay]);
    if (Number(row.old_needs) === 1) count(row.old_stage, row.old_scheme, row.old_day === null ? null : Number(row.old_day), -1);
    if (needs === 1) count(state.stage, scheme, baseDay, 1);
  }
  if (changed.length === 0) return;

  const disputes =
    dialect === "postgres"
      ? sql`(select * from unnest(${changed.map((v) => v[0])}::text[], ${changed.map((v) => v[1])}::text[], ${changed.map((v) => v[2])}::text[],
          ${changed.map((v) => v[3])}::bigint[], ${changed.map((v) => v[4])}::integer[], ${changed.map((v) => v[5])}::text[],
          ${changed.map((v) => v[6])}::text[], ${changed.map((v) => v[7])}::integer[]) as v(a, b, c, d, e, f, g, h))`
      : sql`(select value ->> 0 as a, value ->> 1 as b, value ->> 2 as c, value ->> 3 as d, value ->> 4 as e, value ->> 5 as f, value ->> 6 as g, value ->> 7 as h
          from json_each(${JSON.stringify(changed)}))`;
  // "where true" lets SQLite read the ON CONFLICT clause of an INSERT ... SELECT.
  await sql`insert into disputes (shop_code, acq_ref_nr, kind, record_id, needs_answer, stage, scheme, base_day)
    select a, b, c, d, e, f, g, h from ${disputes} as v where true
    on conflict (shop_code, acq_ref_nr) do update set kind = excluded.kind, record_id = excluded.record_id,
      needs_answer = excluded.needs_answer, stage = excluded.stage, scheme = excluded.scheme, base_day = excluded.base_day`.execute(db);

  const moves = [...deltas].filter(([, n]) => n !== 0).map(([key, n]) => [...(JSON.parse(key) as [string, string, number]), n] as const);
  if (moves.length === 0) return;
  const counts =
    dialect === "postgres"
      ? sql`(select * from unnest(${moves.map((m) => m[0])}::text[], ${moves.map((m) => m[1])}::text[], ${moves.map((m) => m[2])}::integer[],
          ${moves.map((m) => m[3])}::bigint[]) as v(stage, scheme, base_day, n))`
      : sql`(select value ->> 0 as stage, value ->> 1 as scheme, value ->> 2 as base_day, value ->> 3 as n from json_each(${JSON.stringify(moves)}))`;
  await sql`insert into dispute_counts (stage, scheme, base_day, n) select stage, scheme, base_day, n from ${counts} as v where true
    on conflict (stage, scheme, base_day) do update set n = dispute_counts.n + excluded.n`.execute(db);
}
