"use client";

import type { ReactNode } from "react";
import { documentsExpectedBy } from "@/lib/domain/deadlines";
import { type FieldDef, FIELDS_BY_KIND, type RecordKind } from "@/lib/domain/fields";
import { cardTypeName, docIndicatorLabel, functionCodeLabel, hasDocuments, revIndicatorLabel, schemeFromCard } from "@/lib/domain/labels";
import { findReasonCode } from "@/lib/domain/reason-codes";
import { formatAmount, formatDate, formatText } from "@/components/shared/format";

/**
 * How the drawer groups a record's fields (transaction, chargeback / case, reversal, merchant,
 * decision). A field left out of these lists still shows, under "Other fields", so that adding a
 * field to lib/domain/fields.ts can never hide it from the drawer.
 */
export interface FieldGroup {
  title: string;
  fields: string[];
}

export const FIELD_GROUPS: Record<RecordKind, FieldGroup[]> = {
  chargeback: [
    { title: "Transaction", fields: ["card", "card_type", "acq_ref_nr", "tr_date_time", "tr_amount", "tr_ccy", "chb_tr_date", "transaction_id", "xid", "payment_id", "payment_order_nr", "card_acceptor_id", "eci_sli", "acq_bin"] },
    { title: "Chargeback", fields: ["file_date", "bank_id", "reason_code", "function_code", "function_code_name", "chb_proc_date", "chb_amount", "chb_ccy", "chb_settl_amount", "chb_settl_ccy", "chb_amount_transaction_ccy", "chb_refer_num", "doc_indicator", "comments"] },
    { title: "Reversal", fields: ["rev_indicator", "rev_amount", "rev_ccy", "rev_date_time"] },
    { title: "Merchant", fields: ["merchant_id", "merchant_name", "parent_mrch_id", "parent_mrch_name", "mcc_code", "merchant_iban_code"] },
    { title: "Decision", fields: ["merchant_decision", "merchant_resp_date", "merchant_comments"] },
  ],
  pre_arbitration: [
    { title: "Transaction", fields: ["card", "acq_ref_nr", "tr_date_time", "amount", "ccy", "transaction_id", "xid", "payment_id", "payment_order_nr", "card_acceptor_id"] },
    { title: "Pre-arbitration case", fields: ["file_date", "bank_id", "case_date", "case_stage", "fdl_comments"] },
    { title: "Merchant", fields: ["merchant_id", "merchant_name"] },
    { title: "Decision", fields: ["merchant_decision"] },
  ],
};

/** The groups with every field of the kind placed exactly once. */
export function groupsFor(kind: RecordKind): { title: string; fields: FieldDef[] }[] {
  const defs = new Map(FIELDS_BY_KIND[kind].map((d) => [d.name, d]));
  const placed = new Set<string>();
  const groups = FIELD_GROUPS[kind].map((g) => ({
    title: g.title,
    fields: g.fields.flatMap((name) => {
      const d = defs.get(name);
      if (!d || placed.has(name)) return [];
      placed.add(name);
      return [d];
    }),
  }));
  const rest = FIELDS_BY_KIND[kind].filter((d) => !placed.has(d.name));
  return rest.length ? [...groups, { title: "Other fields", fields: rest }] : groups;
}

/** Reference numbers people paste into other systems get a copy button. */
export const COPYABLE = new Set(["acq_ref_nr", "chb_refer_num", "transaction_id", "payment_id", "payment_order_nr", "xid", "merchant_id"]);

const CURRENCY_OF: Record<string, string> = {
  chb_amount: "chb_ccy",
  chb_settl_amount: "chb_settl_ccy",
  chb_amount_transaction_ccy: "tr_ccy",
  tr_amount: "tr_ccy",
  rev_amount: "rev_ccy",
  amount: "ccy",
};

const CATEGORY_STYLES: Record<string, string> = {
  fraud: "bg-red-100 text-red-900",
  authorization: "bg-orange-100 text-orange-900",
  "processing error": "bg-sky-100 text-sky-900",
  "consumer dispute": "bg-violet-100 text-violet-900",
};

/** A field's value for people: the plain meaning next to the code, amounts in their currency. */
export function fieldValue(def: FieldDef, record: Record<string, unknown>): { text: string; extra?: ReactNode } {
  const value = record[def.name];
  switch (def.name) {
    case "reason_code": {
      const entry = findReasonCode(value as number, record.card_type as string);
      if (!entry) return { text: `${value} — unknown code` };
      return {
        text: `${value} — ${entry.title}`,
        extra: <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${CATEGORY_STYLES[entry.category] ?? ""}`}>{entry.category}</span>,
      };
    }
    case "function_code":
      return { text: functionCodeLabel(value as number).replace(/^(\d+) /, "$1 — ") };
    case "doc_indicator": {
      const until = hasDocuments(value) ? documentsExpectedBy(record.chb_proc_date as string) : undefined;
      return { text: docIndicatorLabel(value), extra: until ? <span className="text-xs text-slate-700">Documents may arrive until {until} (8 days after processing).</span> : undefined };
    }
    case "rev_indicator":
      return { text: revIndicatorLabel(value) };
    case "card_type":
      return { text: value ? `${value} (${cardTypeName(value as string)})` : "—" };
    case "card": {
      const scheme = record.card_type ? undefined : schemeFromCard(value as string);
      return { text: formatText(value), extra: scheme ? <span className="text-xs text-slate-700">{cardTypeName(scheme)} by its BIN</span> : undefined };
    }
  }
  if (def.kind === "amount") return { text: formatAmount(value, CURRENCY_OF[def.name] ? record[CURRENCY_OF[def.name]] : undefined) };
  if (def.kind === "date" || def.kind === "trDate") return { text: formatDate(value) };
  return { text: formatText(value) };
}
