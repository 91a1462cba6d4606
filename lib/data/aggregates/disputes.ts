import { type Kysely, sql } from "kysely";
import { dayNumber } from "@/lib/domain/calendar";
import { type CurrentItem, disputeState } from "@/lib/domain/deadlines";
import type { RecordKind } from "@/lib/domain/kinds";
import type { Dialect } from "../connection/dialect";
import { type Database, RECORD_TABLES } from "../connection/schema";

/**
 * The disputes table (docs/api.md, "Worklist"): per shop and acq_ref_nr, the current item and whether it waits
 * for the merchant's answer, with what its answer-by date is counted from (stage, scheme, base
 * day). Nothing here depends on the configured windows, so a change of DEADLINE_DAYS_* needs no
 * rebuild: the worklist adds the windows at query time (lib/data/queries/worklist.ts). dispute_counts
 * holds the disputes that need an answer per stage, scheme and base day, for exact totals of a
 * scope that covers every shop without counting rows.
 */

/** The scheme of a case whose BIN names neither: the earlier of both windows applies. */
export const EITHER_SCHEME = "EITHER";

/** Records per round of the refresh: a million-record file is refreshed in bounded steps. */
const CHUNK_IDS = 20_000;

/** A record of the refreshed range, with the stored state of its dispute (null when it has none yet). */
interface RecordRow {
  id: number;
  shop_code: string;
  acq_ref_nr: string;
  base_date: string;
  card: string;
  card_type?: string | null;
  function_code?: number | null;
  rev_indicator?: string | null;
  merchant_decision: string | null;
  old_kind: string | null;
  old_id: number | null;
  old_needs: number | null;
  old_stage: string | null;
  old_scheme: string | null;
  old_day: number | null;
}

type DisputeValues = [shop: string, acqRef: string, kind: RecordKind, recordId: number, needs: 0 | 1, stage: string | null, scheme: string, baseDay: number];

/**
 * Brings the disputes of the records `firstId`..`lastId` of a kind up to date. Call it in the
 * import's transaction after a file's rows are written, so that the disputes and the records
 * commit together.
 *
 * A dispute's current item is the greatest of its records in one order: any case after any
 * chargeback, then the later date (case_date, chb_proc_date), then the higher ID. The greatest of
 * all records is the greater of the greatest of the earlier ones (the stored current item, whose
 * kind, base day and ID the row keeps) and the greatest of the new ones, and records never change;
 * so the refresh reads only the new records and their disputes' rows, never a dispute's earlier
 * records (looking those up again cost the import a third of its speed). The order of the ranges
 * does not matter either.
 */
export async function refreshDisputes(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, firstId: number, lastId: number): Promise<void> {
  for (let from = firstId; from <= lastId; from += CHUNK_IDS) {
    await refreshChunk(db, dialect, kind, from, Math.min(lastId, from + CHUNK_IDS - 1));
  }
}

/** a comes after b in the order of current items (both records of the same kind, or a stored one). */
function later(a: { isCase: boolean; day: number; id: number }, b: { isCase: boolean; day: number; id: number }): boolean {
  if (a.isCase !== b.isCase) return a.isCase;
  return a.day !== b.day ? a.day > b.day : a.id > b.id;
}

async function refreshChunk(db: Kysely<Database>, dialect: Dialect, kind: RecordKind, from: number, to: number): Promise<void> {
  const isCase = kind === "pre_arbitration";
  const fields = isCase
    ? sql`r.case_date as base_date, r.card, r.merchant_decision`
    : sql`r.chb_proc_date as base_date, r.card, r.card_type, r.function_code, r.rev_indicator, r.merchant_decision`;
  const { rows } = await sql<RecordRow>`
    select r.id, r.shop_code, r.acq_ref_nr, ${fields},
      d.kind as old_kind, d.record_id as old_id, d.needs_answer as old_needs, d.stage as old_stage, d.scheme as old_scheme, d.base_day as old_day
    from ${sql.table(RECORD_TABLES[kind])} r
    left join disputes d on d.shop_code = r.shop_code and d.acq_ref_nr = r.acq_ref_nr
    where r.id >= ${from} and r.id <= ${to}`.execute(db);

  // The greatest new record of each dispute.
  const best = new Map<string, { row: RecordRow; day: number }>();
  for (const row of rows) {
    const key = JSON.stringify([row.shop_code, row.acq_ref_nr]);
    const day = dayNumber(row.base_date)!;
    const known = best.get(key);
    if (!known || later({ isCase, day, id: Number(row.id) }, { isCase, day: known.day, id: Number(known.row.id) })) best.set(key, { row, day });
  }

  const changed: DisputeValues[] = [];
  const deltas = new Map<string, number>();
  const count = (stage: string | null, scheme: string | null, day: number, delta: number) => {
    const key = JSON.stringify([stage, scheme, day]);
    deltas.set(key, (deltas.get(key) ?? 0) + delta);
  };
  for (const { row, day } of best.values()) {
    const id = Number(row.id);
    if (row.old_kind !== null && later({ isCase: row.old_kind === "pre_arbitration", day: Number(row.old_day), id: Number(row.old_id) }, { isCase, day, id })) continue;
    const item: CurrentItem = isCase
      ? { kind: "pre_arbitration", card: row.card, case_date: row.base_date, merchant_decision: row.merchant_decision }
      : { kind: "chargeback", card_type: row.card_type, function_code: row.function_code, rev_indicator: row.rev_indicator, chb_proc_date: row.base_date, merchant_decision: row.merchant_decision };
    const state = disputeState(item);
    const needs = state.needsAnswer && state.stage !== null ? 1 : 0;
    const scheme = state.scheme ?? EITHER_SCHEME;
    changed.push([row.shop_code, row.acq_ref_nr, kind, id, needs, state.stage, scheme, day]);
    if (Number(row.old_needs) === 1) count(row.old_stage, row.old_scheme, Number(row.old_day), -1);
    if (needs === 1) count(state.stage, scheme, day, 1);
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
