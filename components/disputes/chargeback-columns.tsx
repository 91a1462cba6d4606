"use client";

import { chargebackDeadline } from "@/lib/domain/deadlines";
import { CHARGEBACK_FIELDS, type ChargebackFieldName, fieldLabel } from "@/lib/domain/fields";
import { cardTypeName, functionCodeLabel, functionCodeShort } from "@/lib/domain/labels";
import { findReasonCode } from "@/lib/domain/reason-codes";
import { sortKeyOfField } from "@/lib/schemas/search";
import { dataColumnHelper } from "@/components/data-table/features";
import { DeadlineBadge, DecisionBadge, DocumentsBadge, ReversalBadge } from "./badges";
import { useDeadlines } from "@/components/shared/deadline-context";
import { columnId, defaultVisibility, plainFieldColumn } from "./field-columns";
import { formatAmount, formatText } from "@/components/shared/format";
import type { ChargebackRecord, Keyed } from "./types";

type Row = Keyed<ChargebackRecord>;
const helper = dataColumnHelper<Row>();
/** Column names come from the field definitions (lib/domain/fields.ts); short headers are the grid's own. */
const label = (name: string) => fieldLabel("chargeback", name);

/** Currency of each amount field, for formatting. */
const CURRENCY_OF: Partial<Record<ChargebackFieldName, ChargebackFieldName>> = {
  chb_amount: "chb_ccy",
  chb_settl_amount: "chb_settl_ccy",
  chb_amount_transaction_ccy: "tr_ccy",
  tr_amount: "tr_ccy",
  rev_amount: "rev_ccy",
};

function AnswerByCell({ record }: { record: ChargebackRecord }) {
  const { config, today } = useDeadlines();
  return <DeadlineBadge deadline={chargebackDeadline(record as never, config, today)} />;
}

/** The review columns (shown by default), then every other field of the record (selectable). */
const reviewColumns = [
  helper.accessor("file_date", {
    header: label("file_date"),
    meta: { label: label("file_date"), sortKey: "FILE_DATE", defaultVisible: true, width: 120 },
    cell: (info) => formatText(info.getValue()),
  }),
  helper.accessor("card", { header: label("card"), enableSorting: false, meta: { label: label("card"), defaultVisible: true, width: 140 }, cell: (info) => <span className="font-mono text-xs">{formatText(info.getValue())}</span> }),
  helper.accessor("card_type", { header: label("card_type"), enableSorting: false, meta: { label: label("card_type"), defaultVisible: true, width: 110 }, cell: (info) => cardTypeName(info.getValue() as string) }),
  helper.accessor("reason_code", {
    header: "Reason",
    enableSorting: false,
    meta: { label: label("reason_code"), defaultVisible: true, width: 280 },
    cell: (info) => {
      const code = info.getValue() as number;
      const entry = findReasonCode(code, info.row.original.card_type as string);
      const text = `${code} ${entry ? entry.title : "— unknown code"}`;
      return <span title={text}>{text}</span>;
    },
  }),
  helper.accessor("function_code", {
    header: "Function",
    enableSorting: false,
    meta: { label: "Function", defaultVisible: true, width: 180 },
    cell: (info) => <span title={functionCodeLabel(info.getValue() as number)}>{`${info.getValue()} ${functionCodeShort(info.getValue() as number)}`}</span>,
  }),
  helper.accessor("chb_amount", {
    header: "Amount",
    enableSorting: false,
    meta: { label: label("chb_amount"), defaultVisible: true, width: 150, align: "end" },
    cell: (info) => formatAmount(info.getValue(), info.row.original.chb_ccy),
  }),
  helper.accessor("chb_proc_date", { header: "Processed", enableSorting: false, meta: { label: label("chb_proc_date"), defaultVisible: true, width: 120 }, cell: (info) => formatText(info.getValue()) }),
  // "Merchant", not the field's "Merchant id": the cell shows the merchant's name with its id.
  helper.accessor("merchant_id", {
    header: "Merchant",
    meta: { label: "Merchant", sortKey: "MERCHANT_ID", defaultVisible: true, width: 210 },
    cell: (info) => {
      const name = info.row.original.merchant_name;
      const text = name ? `${name} (${info.getValue()})` : formatText(info.getValue());
      return <span title={text}>{text}</span>;
    },
  }),
  helper.accessor("payment_order_nr", { header: label("payment_order_nr"), meta: { label: label("payment_order_nr"), sortKey: "PAYMENT_ORDER_NR", defaultVisible: true, width: 170 }, cell: (info) => formatText(info.getValue()) }),
  helper.accessor("rev_indicator", { header: "Reversal", enableSorting: false, meta: { label: "Reversal", defaultVisible: true, width: 100 }, cell: (info) => <ReversalBadge value={info.getValue()} /> }),
  helper.accessor("doc_indicator", { header: "Docs", enableSorting: false, meta: { label: label("doc_indicator"), defaultVisible: true, width: 80 }, cell: (info) => <DocumentsBadge value={info.getValue()} /> }),
  helper.accessor("merchant_decision", { header: "Decision", enableSorting: false, meta: { label: label("merchant_decision"), defaultVisible: true, width: 190 }, cell: (info) => <DecisionBadge value={info.getValue()} /> }),
  helper.display({ id: "answer_by", header: "Answer by", meta: { label: "Answer by (days left)", defaultVisible: true, width: 220 }, cell: (info) => <AnswerByCell record={info.row.original} /> }),
  helper.accessor("acq_ref_nr", { header: "Acquirer ref. number", meta: { label: label("acq_ref_nr"), sortKey: "ACQ_REF_NR", width: 220 }, cell: (info) => <span className="font-mono text-xs">{formatText(info.getValue())}</span> }),
];

const shown = new Set(reviewColumns.map((c) => columnId(c)));

export const chargebackColumns = [
  ...reviewColumns,
  ...CHARGEBACK_FIELDS.filter((d) => !shown.has(d.name)).map((d) => plainFieldColumn<Row>(d, { currencyField: CURRENCY_OF[d.name], sortKey: sortKeyOfField("chargeback", d.name) })),
];

export const chargebackDefaultVisibility = defaultVisibility(chargebackColumns);
