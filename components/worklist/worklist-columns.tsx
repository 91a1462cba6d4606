"use client";

import type { ColumnDef } from "@tanstack/react-table";
import { dataColumnHelper, type DataTableFeatures } from "@/components/data-table/features";
import { deadlineText } from "@/components/disputes/badges";
import { useDeadlines } from "@/components/shared/deadline-context";
import { formatAmount, formatText } from "@/components/shared/format";
import { chargebackDeadline, type DisputeStatus, preArbitrationDeadline } from "@/lib/domain/deadlines";
import { KINDS, type RecordKind } from "@/lib/domain/kinds";
import { functionCodeShort, isReversal } from "@/lib/domain/labels";
import { findReasonCode } from "@/lib/domain/reason-codes";
import { itemGroupLabel } from "@/lib/url-state/worklist";

/** One item of POST /api/worklist (docs/api.md, "Worklist"), with its stable key for the table. */
export interface WorklistRow {
  kind: RecordKind;
  answer_by: string;
  status: DisputeStatus;
  record: Record<string, unknown>;
  __key: string;
}

const helper = dataColumnHelper<WorklistRow>();
const badge = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap";
const GROUP_STYLES: Record<string, string> = {
  expired: "bg-slate-200 text-slate-800",
  overdue: "bg-red-100 text-red-900",
  soon: "bg-amber-100 text-amber-900",
  week: "bg-sky-100 text-sky-900",
  later: "bg-slate-100 text-slate-800",
};

/**
 * The row's status on the user's today (the server counted it on the same date, passed as
 * as_of), with the drawer's wording: days left, days overdue, or the day it expired.
 */
function DueCell({ row }: { row: WorklistRow }) {
  const { config, today } = useDeadlines();
  const deadline = row.kind === "chargeback" ? chargebackDeadline(row.record as never, config, today) : preArbitrationDeadline(row.record as never, config, today);
  const group = itemGroupLabel(row.status, deadline.daysLeft ?? 0);
  return (
    <span className="inline-flex items-center gap-2">
      <span className={`${badge} ${GROUP_STYLES[group.key]}`}>{group.label}</span>
      <span className="text-xs text-slate-700">{deadlineText(deadline)}</span>
    </span>
  );
}

function stageOf(row: WorklistRow): string {
  const r = row.record;
  if (row.kind === "pre_arbitration") return `Pre-arbitration${r.case_stage ? ` (${r.case_stage})` : ""}`;
  if (isReversal(r.rev_indicator)) return "Reversal";
  return functionCodeShort(r.function_code as number);
}

export const worklistColumns = ([
  helper.accessor("answer_by", { header: "Answer by", enableSorting: false, meta: { label: "Answer by", defaultVisible: true, width: 110 }, cell: (info) => <span className="tabular-nums">{info.getValue()}</span> }),
  helper.display({ id: "due", header: "Status", meta: { label: "Status", defaultVisible: true, width: 250 }, cell: (info) => <DueCell row={info.row.original} /> }),
  helper.accessor("kind", { header: "Kind", enableSorting: false, meta: { label: "Kind", defaultVisible: true, width: 130 }, cell: (info) => KINDS[info.getValue()].singular }),
  helper.display({ id: "stage", header: "Stage", meta: { label: "Stage", defaultVisible: true, width: 200 }, cell: (info) => stageOf(info.row.original) }),
  helper.display({
    id: "acq_ref_nr",
    header: "Acquirer reference number",
    meta: { label: "Acquirer reference number", defaultVisible: true, width: 220 },
    cell: (info) => <span className="font-mono text-xs">{formatText(info.row.original.record.acq_ref_nr)}</span>,
  }),
  helper.display({ id: "merchant", header: "Merchant", meta: { label: "Merchant", defaultVisible: true, width: 220 }, cell: (info) => formatText(info.row.original.record.merchant_name ?? info.row.original.record.merchant_id) }),
  helper.display({
    id: "reason",
    header: "Reason",
    meta: { label: "Reason", defaultVisible: true, width: 260 },
    cell: (info) => {
      const r = info.row.original.record;
      if (info.row.original.kind !== "chargeback") return <span className="text-slate-500">—</span>;
      const entry = findReasonCode(r.reason_code as number, r.card_type as string);
      const text = `${r.reason_code} ${entry ? entry.title : "— unknown code"}`;
      return <span title={text}>{text}</span>;
    },
  }),
  helper.display({
    id: "amount",
    header: "Amount",
    meta: { label: "Amount", defaultVisible: true, width: 140 },
    cell: (info) => {
      const r = info.row.original.record;
      return <span className="tabular-nums">{info.row.original.kind === "chargeback" ? formatAmount(r.chb_amount, r.chb_ccy) : formatAmount(r.amount, r.ccy)}</span>;
    },
  }),
  helper.display({
    id: "base_date",
    header: "From",
    meta: { label: "Processing or case date", defaultVisible: true, width: 110 },
    cell: (info) => <span className="tabular-nums">{formatText(info.row.original.kind === "chargeback" ? info.row.original.record.chb_proc_date : info.row.original.record.case_date)}</span>,
  }),
] as unknown) as ColumnDef<DataTableFeatures, WorklistRow, unknown>[];
