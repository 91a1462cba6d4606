import { cardTypeName, functionCodeLabel } from "@/lib/domain/labels";
import type { RecordKind } from "@/lib/domain/kinds";
import { reasonCodeLabel } from "@/lib/domain/reason-codes";
import type { DimensionName } from "@/lib/schemas/summary";
import type { Measure } from "@/lib/url-state/report";

/**
 * The report's words: dimension names, how a dimension's values read (months as "Jan 2026", reason
 * and function codes with their titles, schemes by name) and the measures. The dimensions themselves
 * come from lib/schemas/summary.ts; a new one there fails the type check here until it has a label.
 */

export const DIMENSION_LABELS: Record<DimensionName, string> = {
  month: "Month",
  file_date: "File date",
  shop_code: "Shop",
  merchant_id: "Merchant id",
  card_type: "Scheme",
  reason_code: "Reason code",
  function_code: "Function code",
  documents: "Issuer documents",
  case_stage: "Case stage",
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2026-01" -> "Jan 2026" (no Date involved, so no time zone can move it). */
export function monthLabel(month: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  return m && MONTHS[Number(m[2]) - 1] ? `${MONTHS[Number(m[2]) - 1]} ${m[1]}` : month;
}

export type DimValue = string | number | null;

/** A dimension's value as the table's headers show it. */
export function valueLabel(dim: DimensionName, value: DimValue): string {
  if (value === null || value === "") return "(none)";
  switch (dim) {
    case "month":
      return monthLabel(String(value));
    case "card_type":
      return cardTypeName(String(value));
    case "reason_code":
      return reasonCodeLabel(Number(value));
    case "function_code":
      return functionCodeLabel(Number(value));
    case "documents":
      return value === "yes" ? "With documents" : "Without documents";
    default:
      return String(value);
  }
}

/** The same, short enough for a chart's axis: codes without their titles. */
export function shortValueLabel(dim: DimensionName, value: DimValue): string {
  if (value !== null && (dim === "reason_code" || dim === "function_code")) return String(value);
  if (dim === "documents") return value === "yes" ? "With" : "Without";
  return valueLabel(dim, value);
}

/** The measure's name in the table's headers, the chart and the file. */
export function measureLabel(kind: RecordKind, measure: Measure): string {
  switch (measure) {
    case "count":
      return "Count";
    case "amount":
      return kind === "chargeback" ? "Amount without reversals" : "Amount";
    case "reversals":
      return "Reversals";
    case "reversal_amount":
      return "Reversal amount";
  }
}

/** The measure as the select offers it. */
export function measureOption(kind: RecordKind, measure: Measure): string {
  switch (measure) {
    case "count":
      return "Count of records";
    case "amount":
      return kind === "chargeback" ? "Amount per currency (without reversals)" : "Amount per currency";
    case "reversals":
      return "Reversals (count)";
    case "reversal_amount":
      return "Reversal amount per currency";
  }
}

/** "chargebacks" / "pre-arbitration cases", one or many. */
export function recordNoun(kind: RecordKind, n: number): string {
  if (kind === "chargeback") return n === 1 ? "chargeback" : "chargebacks";
  return n === 1 ? "pre-arbitration case" : "pre-arbitration cases";
}
