"use client";

import { preArbitrationDeadline } from "@/lib/domain/deadlines";
import { fieldLabel, PRE_ARBITRATION_FIELDS } from "@/lib/domain/fields";
import { cardTypeName, schemeFromCard } from "@/lib/domain/labels";
import { sortKeyOfField } from "@/lib/schemas/search";
import { dataColumnHelper } from "@/components/data-table/features";
import { DeadlineBadge, DecisionBadge } from "./badges";
import { useDeadlines } from "@/components/shared/deadline-context";
import { columnId, defaultVisibility, plainFieldColumn } from "./field-columns";
import { formatAmount, formatText } from "@/components/shared/format";
import type { Keyed, PreArbitrationRecord } from "./types";

type Row = Keyed<PreArbitrationRecord>;
const helper = dataColumnHelper<Row>();
/** Column names come from the field definitions (lib/domain/fields.ts); short headers are the grid's own. */
const label = (name: string) => fieldLabel("pre_arbitration", name);

function AnswerByCell({ record }: { record: PreArbitrationRecord }) {
  const { config, today } = useDeadlines();
  return <DeadlineBadge deadline={preArbitrationDeadline(record as never, config, today)} />;
}

const reviewColumns = [
  // No FILE_DATE sort key for pre-arbitration (docs/api.md, "Request body"): the header is not a sort button.
  helper.accessor("file_date", { header: label("file_date"), enableSorting: false, meta: { label: label("file_date"), defaultVisible: true, width: 120 }, cell: (info) => formatText(info.getValue()) }),
  helper.accessor("card", { header: label("card"), enableSorting: false, meta: { label: label("card"), defaultVisible: true, width: 140 }, cell: (info) => <span className="font-mono text-xs">{formatText(info.getValue())}</span> }),
  helper.display({
    id: "scheme",
    header: "Scheme",
    meta: { label: "Scheme (from the card number)", defaultVisible: true, width: 110 },
    cell: (info) => cardTypeName(schemeFromCard(info.row.original.card as string)),
  }),
  helper.accessor("case_date", { header: label("case_date"), enableSorting: false, meta: { label: label("case_date"), defaultVisible: true, width: 120 }, cell: (info) => formatText(info.getValue()) }),
  helper.accessor("case_stage", { header: label("case_stage"), enableSorting: false, meta: { label: label("case_stage"), defaultVisible: true, width: 180 }, cell: (info) => <span title={formatText(info.getValue())}>{formatText(info.getValue())}</span> }),
  helper.accessor("amount", { header: label("amount"), enableSorting: false, meta: { label: label("amount"), defaultVisible: true, width: 150, align: "end" }, cell: (info) => formatAmount(info.getValue(), info.row.original.ccy) }),
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
  helper.accessor("merchant_decision", { header: "Decision", enableSorting: false, meta: { label: label("merchant_decision"), defaultVisible: true, width: 150 }, cell: (info) => <DecisionBadge value={info.getValue()} /> }),
  helper.display({ id: "answer_by", header: "Answer by", meta: { label: "Answer by (days left)", defaultVisible: true, width: 220 }, cell: (info) => <AnswerByCell record={info.row.original} /> }),
  helper.accessor("acq_ref_nr", { header: "Acquirer ref. number", meta: { label: label("acq_ref_nr"), sortKey: "ACQ_REF_NR", width: 220 }, cell: (info) => <span className="font-mono text-xs">{formatText(info.getValue())}</span> }),
];

const shown = new Set(reviewColumns.map((c) => columnId(c)));

export const preArbitrationColumns = [
  ...reviewColumns,
  ...PRE_ARBITRATION_FIELDS.filter((d) => !shown.has(d.name)).map((d) => plainFieldColumn<Row>(d, { currencyField: d.name === "amount" ? "ccy" : undefined, sortKey: sortKeyOfField("pre_arbitration", d.name) })),
];

export const preArbitrationDefaultVisibility = defaultVisibility(preArbitrationColumns);
