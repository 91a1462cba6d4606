"use client";

import { ChartFigure, NumbersTable } from "@/components/overview/chart-figure";
import { BarChart, type Series } from "@/components/overview/charts";
import { COLORS, nf, SCHEMES, STAGE_COLORS } from "@/components/overview/palette";
import { formatMinor } from "@/lib/domain/money";
import { isMoneyMeasure } from "@/lib/url-state/report";
import { DIMENSION_LABELS, measureLabel, shortValueLabel, valueLabel } from "./labels";
import { formatMinorGrouped, type Pivot, type Tally } from "./pivot";

/** At most this many series are stacked; the smaller columns beyond them are one "Other" series. */
const MAX_SERIES = 8;
/** A bar per row value: beyond this many the table says it better than a chart. */
const MAX_BARS = 100;
const SERIES_COLORS = [COLORS.visa, COLORS.mastercard, STAGE_COLORS[2], COLORS.reasons, "#be185d", "#4d7c0f", "#0e7490", "#64748b"];

/**
 * The table's measure per row value as bars, stacked by column value (the largest seven and the
 * rest as "Other" when there are more than eight). An amount is drawn for its first currency
 * only: currencies are never added together. The figure carries a caption and the numbers.
 */
export function ReportChart({ pivot }: { pivot: Pivot }) {
  const { layout } = pivot;
  if (pivot.rows.length < 2 || pivot.rows.length > MAX_BARS) return null;
  const money = isMoneyMeasure(layout.measure);
  const currency = money ? pivot.currencies[0] : undefined;
  if (money && !currency) return null;
  const exact = (t: Tally | undefined): bigint => {
    if (!t) return 0n;
    if (money) return (layout.measure === "amount" ? t.amount : t.reversal).get(currency!) ?? 0n;
    return BigInt(layout.measure === "reversals" ? t.reversals : t.count);
  };
  const text = (v: bigint) => (money ? formatMinorGrouped(v) : nf.format(Number(v)));
  // Only the picture uses floating point; the numbers shown are the exact ones.
  const drawn = (v: bigint) => (money ? Number(formatMinor(v)) : Number(v));

  // The series: one per column value, the largest first when they must be cut to MAX_SERIES.
  const colDim = layout.cols;
  let series: (Series & { cis: number[] })[];
  if (!colDim) {
    series = [{ key: "all", name: measureLabel(layout.kind, layout.measure), color: COLORS.topList, cis: [0] }];
  } else {
    const byTotal = pivot.cols.map((_, ci) => ci);
    if (byTotal.length > MAX_SERIES) byTotal.sort((a, b) => (exact(pivot.colTotals[b]) > exact(pivot.colTotals[a]) ? 1 : exact(pivot.colTotals[b]) < exact(pivot.colTotals[a]) ? -1 : a - b));
    const shown = byTotal.length > MAX_SERIES ? byTotal.slice(0, MAX_SERIES - 1).sort((a, b) => a - b) : byTotal;
    const rest = byTotal.filter((ci) => !shown.includes(ci));
    series = shown.map((ci, i) => {
      const value = pivot.cols[ci];
      const scheme = colDim === "card_type" ? SCHEMES.find((s) => s.key === value) : undefined;
      return { key: `c${ci}`, name: valueLabel(colDim, value), color: scheme?.color ?? SERIES_COLORS[i % SERIES_COLORS.length], cis: [ci] };
    });
    if (rest.length) series.push({ key: "other", name: `Other (${rest.length})`, color: SERIES_COLORS[SERIES_COLORS.length - 1], cis: rest });
  }
  const cellsOf = (ri: number, cis: number[]) => cis.reduce((sum, ci) => sum + exact(pivot.cells.get(ri * pivot.cols.length + ci)), 0n);
  const rows = pivot.rows.map((value, ri) => ({ label: shortValueLabel(layout.rows, value), name: valueLabel(layout.rows, value), values: series.map((s) => cellsOf(ri, s.cis)), total: exact(pivot.rowTotals[ri]) }));
  const peak = rows.reduce((best, r) => (r.total > best.total ? r : best), rows[0]);

  const rowWord = DIMENSION_LABELS[layout.rows].toLowerCase();
  const title = `${measureLabel(layout.kind, layout.measure)}${currency ? ` (${currency})` : ""} per ${rowWord}${colDim ? `, by ${DIMENSION_LABELS[colDim].toLowerCase()}` : ""}`;
  const notes = [
    `${rows.length} bars; the most for ${peak.name} (${text(peak.total)}${currency ? ` ${currency}` : ""}).`,
    money && pivot.currencies.length > 1 ? `${currency} only: the other currencies (${pivot.currencies.slice(1).join(", ")}) are in the table.` : "",
    series.some((s) => s.key === "other") ? `The ${MAX_SERIES - 1} largest columns are drawn apart, the others together as Other.` : "",
  ].filter(Boolean);

  return (
    <ChartFigure
      id="report"
      title={title}
      summary={notes.join(" ")}
      chart={
        <BarChart
          data={rows.map((r) => ({ label: r.label, values: Object.fromEntries(series.map((s, i) => [s.key, drawn(r.values[i])])) }))}
          series={series}
          legend={colDim ? series.map((s) => ({ name: s.name, color: s.color })) : undefined}
        />
      }
      table={
        <NumbersTable
          caption={title}
          head={[DIMENSION_LABELS[layout.rows], ...(colDim ? series.map((s) => s.name) : []), "Total"]}
          rows={rows.map((r) => [r.name, ...(colDim ? r.values.map(text) : []), text(r.total)])}
        />
      }
    />
  );
}
