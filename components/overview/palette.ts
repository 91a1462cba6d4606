import type { Series } from "./charts";

/**
 * The overview's colours and number formats in one place, so that a scheme or a stage keeps its
 * colour from chart to chart.
 */

export const nf = new Intl.NumberFormat("en");
export const pct = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 1 });

export const COLORS = {
  mastercard: "#b45309",
  visa: "#1d4ed8",
  /** the ECP's upper floor (its lower one is drawn in the Mastercard colour) */
  alarm: "#b91c1c",
  reasons: "#0f766e",
  topList: "#1d4ed8",
} as const;

export const SCHEMES: Series[] = [
  { key: "MC", name: "Mastercard", color: COLORS.mastercard },
  { key: "VISA", name: "Visa", color: COLORS.visa },
];
export const STAGE_COLORS = ["#1d4ed8", "#b45309", "#7c3aed", "#0f766e"];
export const DOCUMENT_COLORS = ["#0369a1", "#cbd5e1"];
