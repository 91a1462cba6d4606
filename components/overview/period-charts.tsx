import { findReasonCode, REASON_CATEGORIES } from "@/lib/domain/reason-codes";
import { ChartFigure, ChartLoading, NumbersTable } from "./chart-figure";
import { BarChart, Donut } from "./charts";
import type { ChargebackGroup, PreArbitrationGroup, Summary } from "./overview-api";
import { COLORS, DOCUMENT_COLORS, nf, pct, SCHEMES, STAGE_COLORS } from "./palette";

/**
 * What the period's disputes are made of: chargebacks per month by scheme, their reasons, the
 * stage mix and issuer documents. Chargebacks count without reversals throughout.
 */

export function MonthlyByScheme({ months, summary }: { months: string[]; summary?: Summary<ChargebackGroup> }) {
  const title = "Chargebacks per month by scheme";
  if (!summary) return <ChartLoading id="monthly" title={title} />;
  const rows = months.map((month) => {
    const of = (scheme: string) => summary.groups.filter((g) => g.key.month === month && g.key.card_type === scheme).reduce((n, g) => n + g.count - g.reversals, 0);
    return { month, MC: of("MC"), VISA: of("VISA") };
  });
  const peak = rows.reduce((best, r) => (r.MC + r.VISA > best.MC + best.VISA ? r : best), rows[0] ?? { month: "", MC: 0, VISA: 0 });
  return (
    <ChartFigure
      id="monthly"
      title={title}
      summary={rows.length ? `Over ${rows.length} months; the most in ${peak.month} (${nf.format(peak.MC + peak.VISA)}: Mastercard ${nf.format(peak.MC)}, Visa ${nf.format(peak.VISA)}).` : "No months in this period."}
      chart={
        <BarChart data={rows.map((r) => ({ label: r.month, values: { MC: r.MC, VISA: r.VISA } }))} series={SCHEMES} legend={SCHEMES} />
      }
      table={<NumbersTable caption={title} head={["Month", "Mastercard", "Visa", "Total"]} rows={rows.map((r) => [r.month, nf.format(r.MC), nf.format(r.VISA), nf.format(r.MC + r.VISA)])} />}
    />
  );
}

export function Reasons({ summary }: { summary?: Summary<ChargebackGroup> }) {
  const title = "Reasons";
  if (!summary) return <ChartLoading id="reasons" title={title} />;
  const codes = summary.groups
    .map((g) => {
      const entry = findReasonCode(Number(g.key.reason_code), String(g.key.card_type));
      return { code: Number(g.key.reason_code), scheme: String(g.key.card_type), title: entry?.title ?? "unknown code", category: entry?.category ?? "unknown", count: g.count - g.reversals };
    })
    .filter((c) => c.count > 0)
    .sort((a, b) => b.count - a.count || a.code - b.code);
  const categories = [...REASON_CATEGORIES, "unknown" as const].map((category) => ({ category, count: codes.filter((c) => c.category === category).reduce((n, c) => n + c.count, 0) })).filter((c) => c.count > 0);
  const total = categories.reduce((n, c) => n + c.count, 0);
  const top = codes.slice(0, 10);
  return (
    <ChartFigure
      id="reasons"
      title={title}
      summary={total ? `By category: ${categories.map((c) => `${c.category} ${pct.format(c.count / total)}`).join(", ")}. Top reason: ${top[0].code} ${top[0].title}.` : "No chargebacks in this period."}
      chart={
        <BarChart horizontal data={categories.map((c) => ({ label: c.category, values: { count: c.count } }))} series={[{ key: "count", name: "Chargebacks", color: COLORS.reasons }]} />
      }
      table={<NumbersTable caption="Top reason codes" head={["Reason code", "Category", "Chargebacks"]} rows={top.map((c) => [`${c.code} ${c.title} (${c.scheme})`, c.category, nf.format(c.count)])} />}
    />
  );
}

export function StageMix({ functions, cases }: { functions?: Summary<ChargebackGroup>; cases?: Summary<PreArbitrationGroup> }) {
  const title = "Stage mix";
  if (!functions || !cases) return <ChartLoading id="stages" title={title} />;
  const of = (codes: number[]) => functions.groups.filter((g) => codes.includes(Number(g.key.function_code))).reduce((n, g) => n + g.count - g.reversals, 0);
  const data = [
    { stage: "First chargeback", count: of([450, 453]) },
    { stage: "Arbitration chargeback", count: of([451, 454]) },
    { stage: "Reversal", count: functions.groups.reduce((n, g) => n + g.reversals, 0) },
    { stage: "Pre-arbitration", count: cases.groups[0]?.count ?? 0 },
  ];
  const total = data.reduce((n, d) => n + d.count, 0);
  return (
    <ChartFigure
      id="stages"
      title={title}
      summary={total ? data.map((d) => `${d.stage} ${pct.format(d.count / total)}`).join(", ") + "." : "Nothing in this period."}
      chart={<Donut data={data.map((d) => ({ name: d.stage, count: d.count }))} colors={STAGE_COLORS} />}
      table={<NumbersTable caption={title} head={["Stage", "Records", "Share"]} rows={data.map((d) => [d.stage, nf.format(d.count), total ? pct.format(d.count / total) : "—"])} />}
    />
  );
}

export function Documents({ summary }: { summary?: Summary<ChargebackGroup> }) {
  const title = "Issuer documents";
  if (!summary) return <ChartLoading id="documents" title={title} />;
  const withDocs = summary.groups.filter((g) => g.key.documents === "yes").reduce((n, g) => n + g.count - g.reversals, 0);
  const total = summary.groups.reduce((n, g) => n + g.count - g.reversals, 0);
  const data = [
    { name: "With documents", count: withDocs },
    { name: "Without", count: total - withDocs },
  ];
  return (
    <ChartFigure
      id="documents"
      title={title}
      summary={total ? `${pct.format(withDocs / total)} of the period's chargebacks (${nf.format(withDocs)} of ${nf.format(total)}) came with issuer documents.` : "No chargebacks in this period."}
      chart={<Donut data={data} colors={DOCUMENT_COLORS} />}
      table={<NumbersTable caption={title} head={["", "Chargebacks", "Share"]} rows={data.map((d) => [d.name, nf.format(d.count), total ? pct.format(d.count / total) : "—"])} />}
    />
  );
}
