"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useQueryStates } from "nuqs";
import { useState } from "react";
import { ErrorState } from "@/components/data-table/states";
import { useDeadlines } from "@/components/disputes/deadline-context";
import { FilterPanel } from "@/components/disputes/filter-panel";
import { formatAmount } from "@/components/disputes/format";
import { problemText, retryTransient } from "@/components/disputes/problem-text";
import { findReasonCode, REASON_CATEGORIES } from "@/lib/domain/reason-codes";
import { ECP_FLOORS, monthsOf } from "@/lib/domain/periods";
import { OVERVIEW_FILTERS, overviewParsers, periods } from "@/lib/url-state/overview";
import { ChartFigure, NumbersTable } from "./chart-figure";
import { BarChart, Donut, type Series } from "./charts";
import { type ChargebackGroup, type EcpMonth, fetchOverview, type Overview, type OverviewAnswer, type PreArbitrationGroup, type Summary } from "./overview-api";

const nf = new Intl.NumberFormat("en");
const pct = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 1 });
const SCHEMES: Series[] = [
  { key: "MC", name: "Mastercard", color: "#b45309" },
  { key: "VISA", name: "Visa", color: "#1d4ed8" },
];
const STAGE_COLORS = ["#1d4ed8", "#b45309", "#7c3aed", "#0f766e"];
const DOCUMENT_COLORS = ["#0369a1", "#cbd5e1"];

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? "no change" : "new in this period";
  const ratio = (now - before) / before;
  return `${ratio > 0 ? "+" : ""}${pct.format(ratio)} against the previous period`;
}

/**
 * "Are our disputes growing, where, and why?": headline figures per currency with the change
 * against the previous period of the same length, chargebacks per month by scheme, reasons, the
 * stage mix, issuer documents, the shops and merchants with the most disputes, and Mastercard's
 * Excessive Chargeback Program counts. Every number comes from the summary API (docs/api.md, "Summaries"),
 * aggregated by the database; each chart has a table of its numbers.
 */
export function OverviewView({ shops, first }: { shops: string[]; first?: OverviewAnswer }) {
  const [view, setView] = useQueryStates(overviewParsers, { history: "push" });
  const { today } = useDeadlines();
  // The parsers only let calendar dates through, and the default period ends today: always defined.
  const { current, previous } = periods(view, today)!;
  const body = { ...(view.shops?.length ? { shop_codes: view.shops } : {}), file_date_from: current.from, file_date_to: current.to };
  // The page's own answer, when it was read for this very request (the URL's period and shops).
  const [initial] = useState(() => (first ? { request: JSON.stringify(first.request), data: JSON.parse(first.json) as Overview, at: Date.now() } : undefined));
  const matches = initial?.request === JSON.stringify(body);
  const answer = useQuery({
    queryKey: ["overview", body],
    queryFn: ({ signal }) => fetchOverview(body, signal),
    retry: retryTransient,
    staleTime: 60_000,
    initialData: matches ? initial.data : undefined,
    initialDataUpdatedAt: matches ? initial.at : undefined,
  });
  const data = answer.data;
  const gridLink = (extra: Record<string, string>) => `/chargebacks?${new URLSearchParams({ from: current.from, to: current.to, ...(view.shops?.length ? { shops: view.shops.join(",") } : {}), ...extra })}`;

  return (
    <div className="space-y-4">
      <FilterPanel defs={OVERVIEW_FILTERS} values={view as unknown as Record<string, unknown>} shops={shops} onChange={(patch) => void setView(patch as never)} />
      <p className="text-sm text-slate-800" data-testid="overview-period">
        File dates {current.from} to {current.to} ({current.days} days), compared with {previous.from} to {previous.to}.
      </p>
      {answer.error ? <ErrorState {...problemText(answer.error, "the overview")} onRetry={() => void answer.refetch()} /> : null}
      <Headlines cbNow={data?.chargebacks} cbBefore={data?.chargebacks_previous} paNow={data?.pre_arbitrations} paBefore={data?.pre_arbitrations_previous} />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2 print:grid-cols-1">
        <MonthlyByScheme months={monthsOf(current)} summary={data?.by_month_and_scheme} />
        <Reasons summary={data?.by_reason} />
        <StageMix functions={data?.by_function_code} cases={data?.pre_arbitrations} />
        <Documents summary={data?.by_documents} />
        <TopList title="Shops with the most chargebacks" id="top-shops" summary={data?.by_shop} dimension="shop_code" link={(v) => gridLink({ shops: v })} />
        <TopList title="Merchants with the most chargebacks" id="top-merchants" summary={data?.by_merchant} dimension="merchant_id" link={(v) => gridLink({ merchant: v })} />
      </div>
      <ExcessiveChargebacks months={data?.excessive_chargebacks} />
      <p className="text-xs text-slate-600 print:hidden">
        Chargebacks count the chargeback messages of the period that are not reversals; amounts are summed per currency and never added across currencies.{" "}
        <Link href="/chargebacks" className="underline">
          Open the chargeback grid
        </Link>
      </p>
    </div>
  );
}

function Tile({ label, value, sub, testId }: { label: string; value: string; sub: string[]; testId: string }) {
  return (
    <div className="rounded-md border border-slate-300 bg-white p-3" data-testid={testId}>
      <p className="text-sm text-slate-700">{label}</p>
      <p className="text-2xl font-semibold tabular-nums">{value}</p>
      {sub.map((line) => (
        <p key={line} className="text-xs text-slate-700 tabular-nums">
          {line}
        </p>
      ))}
    </div>
  );
}

function amountsBy<T extends { currency: string }>(groups: { amounts: T[] }[] | undefined, pick: (a: T) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of groups ?? []) for (const a of g.amounts) out.set(a.currency, (out.get(a.currency) ?? 0) + pick(a));
  return out;
}

function perCurrency(now: Map<string, number>, before: Map<string, number>): string[] {
  const currencies = [...new Set([...now.keys(), ...before.keys()])].sort();
  if (!currencies.length) return ["no amounts"];
  return currencies.map((c) => `${formatAmount(now.get(c) ?? 0, c)} (${change(now.get(c) ?? 0, before.get(c) ?? 0)})`);
}

function Headlines({ cbNow, cbBefore, paNow, paBefore }: { cbNow?: Summary<ChargebackGroup>; cbBefore?: Summary<ChargebackGroup>; paNow?: Summary<PreArbitrationGroup>; paBefore?: Summary<PreArbitrationGroup> }) {
  if (!cbNow || !cbBefore || !paNow || !paBefore) return <div className="h-28 animate-pulse rounded-md bg-slate-200" aria-label="Loading the headline figures" />;
  const [now, before] = [cbNow.groups[0], cbBefore.groups[0]];
  const chargebacks = now.count - now.reversals;
  const chargebacksBefore = before.count - before.reversals;
  return (
    <section aria-label="Headline figures" className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
      <Tile testId="headline-chargebacks" label="Chargebacks" value={nf.format(chargebacks)} sub={[change(chargebacks, chargebacksBefore)]} />
      <Tile testId="headline-disputed" label="Amount disputed" value={`${amountsBy(cbNow.groups, (a) => a.chb_amount).size} currencies`} sub={perCurrency(amountsBy(cbNow.groups, (a) => a.chb_amount), amountsBy(cbBefore.groups, (a) => a.chb_amount))} />
      <Tile
        testId="headline-reversals"
        label="Reversals and amount reversed"
        value={nf.format(now.reversals)}
        sub={[change(now.reversals, before.reversals), ...perCurrency(amountsBy(cbNow.groups, (a) => a.reversal_amount), amountsBy(cbBefore.groups, (a) => a.reversal_amount))]}
      />
      <Tile testId="headline-cases" label="Pre-arbitration cases" value={nf.format(paNow.groups[0].count)} sub={[change(paNow.groups[0].count, paBefore.groups[0].count), ...perCurrency(amountsBy(paNow.groups, (a) => a.amount), amountsBy(paBefore.groups, (a) => a.amount))]} />
    </section>
  );
}

function Loading({ id, title }: { id: string; title: string }) {
  return (
    <figure className="h-80 animate-pulse rounded-md border border-slate-200 bg-slate-100 p-3" data-testid={`chart-${id}`}>
      <figcaption className="text-base font-semibold text-slate-600">{title}</figcaption>
    </figure>
  );
}

function MonthlyByScheme({ months, summary }: { months: string[]; summary?: Summary<ChargebackGroup> }) {
  const title = "Chargebacks per month by scheme";
  if (!summary) return <Loading id="monthly" title={title} />;
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

function Reasons({ summary }: { summary?: Summary<ChargebackGroup> }) {
  const title = "Reasons";
  if (!summary) return <Loading id="reasons" title={title} />;
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
        <BarChart horizontal data={categories.map((c) => ({ label: c.category, values: { count: c.count } }))} series={[{ key: "count", name: "Chargebacks", color: "#0f766e" }]} />
      }
      table={<NumbersTable caption="Top reason codes" head={["Reason code", "Category", "Chargebacks"]} rows={top.map((c) => [`${c.code} ${c.title} (${c.scheme})`, c.category, nf.format(c.count)])} />}
    />
  );
}

function StageMix({ functions, cases }: { functions?: Summary<ChargebackGroup>; cases?: Summary<PreArbitrationGroup> }) {
  const title = "Stage mix";
  if (!functions || !cases) return <Loading id="stages" title={title} />;
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

function Documents({ summary }: { summary?: Summary<ChargebackGroup> }) {
  const title = "Issuer documents";
  if (!summary) return <Loading id="documents" title={title} />;
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

function TopList({ title, id, summary, dimension, link }: { title: string; id: string; summary?: Summary<ChargebackGroup>; dimension: string; link: (value: string) => string }) {
  if (!summary) return <Loading id={id} title={title} />;
  const top = summary.groups
    .map((g) => ({ value: String(g.key[dimension]), count: g.count - g.reversals }))
    .filter((t) => t.count > 0)
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
    .slice(0, 10);
  return (
    <ChartFigure
      id={id}
      title={title}
      summary={top.length ? `${top[0].value} has the most (${nf.format(top[0].count)}). Each name opens the chargeback grid filtered to it.` : "No chargebacks in this period."}
      chart={
        <BarChart horizontal labelWidth={130} data={top.map((t) => ({ label: t.value, values: { count: t.count } }))} series={[{ key: "count", name: "Chargebacks", color: "#1d4ed8" }]} />
      }
      table={
        <NumbersTable
          caption={title}
          head={[dimension === "shop_code" ? "Shop" : "Merchant", "Chargebacks"]}
          rows={top.map((t) => [
            <Link key={t.value} href={link(t.value)} className="text-blue-800 underline">
              {t.value}
            </Link>,
            nf.format(t.count),
          ])}
        />
      }
    />
  );
}

/**
 * Mastercard's Excessive Chargeback Program looks at each merchant's Mastercard chargebacks in a
 * month against two count floors (100 and 300). Its ratio also needs the merchant's sales counts,
 * which acquirer files do not carry, so this says counts only (worked out by the server from a
 * summary by month, merchant and scheme).
 */
function ExcessiveChargebacks({ months }: { months?: EcpMonth[] }) {
  const title = "Mastercard Excessive Chargeback Program: counts per month";
  if (!months) return <Loading id="ecp" title={title} />;
  const rows = months.map((m) => ({ month: m.month, top: m.top_merchant === null ? undefined : { merchant: m.top_merchant, count: m.top_count }, over100: m.at_excessive, over300: m.at_high_excessive }));
  const flagged = rows.filter((r) => r.over100 > 0);
  return (
    <ChartFigure
      id="ecp"
      title={title}
      summary={`${flagged.length ? `${flagged.length} of ${rows.length} months had a merchant at or over ${ECP_FLOORS.excessive} Mastercard chargebacks.` : `No merchant reached ${ECP_FLOORS.excessive} Mastercard chargebacks in a month.`} The floors are ${ECP_FLOORS.excessive} and ${ECP_FLOORS.highExcessive} a month. Counts only: the program's ratio also needs the merchant's sales counts, which acquirer files do not carry.`}
      chart={
        <BarChart
          data={rows.map((r) => ({ label: r.month, values: { most: r.top?.count ?? 0 } }))}
          series={[{ key: "most", name: "Most Mastercard chargebacks of one merchant", color: "#b45309" }]}
          lines={[
            { value: ECP_FLOORS.excessive, color: "#b45309" },
            { value: ECP_FLOORS.highExcessive, color: "#b91c1c" },
          ]}
          minMax={ECP_FLOORS.excessive + 10}
          legend={[
            { name: "Most Mastercard chargebacks of one merchant", color: "#b45309" },
            { name: `Floors: ${ECP_FLOORS.excessive} and ${ECP_FLOORS.highExcessive} a month (dashed)`, color: "#b91c1c" },
          ]}
        />
      }
      table={
        <NumbersTable
          caption={title}
          head={["Month", "Merchant with the most", "Its Mastercard chargebacks", `Merchants at ${ECP_FLOORS.excessive} or more`, `Merchants at ${ECP_FLOORS.highExcessive} or more`]}
          rows={rows.map((r) => [r.month, r.top?.merchant ?? "—", nf.format(r.top?.count ?? 0), nf.format(r.over100), nf.format(r.over300)])}
        />
      }
    />
  );
}
