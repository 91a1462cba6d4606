"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useQueryStates } from "nuqs";
import { useState } from "react";
import { ErrorState } from "@/components/data-table/states";
import { useDeadlines } from "@/components/shared/deadline-context";
import { FilterPanel } from "@/components/shared/filter-panel";
import { problemText, retryTransient } from "@/components/shared/problem-text";
import { monthsOf } from "@/lib/domain/periods";
import { KINDS } from "@/lib/domain/kinds";
import { withPresetDates } from "@/lib/url-state/dispute-view";
import { OVERVIEW_FILTERS, overviewParsers, periods } from "@/lib/url-state/overview";
import { ExcessiveChargebacks } from "./excessive-chargebacks";
import { Headlines } from "./headlines";
import { fetchOverview, type Overview, type OverviewAnswer } from "./overview-api";
import { Documents, MonthlyByScheme, Reasons, StageMix } from "./period-charts";
import { TopList } from "./top-list";

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
  const period = periods(withPresetDates(view, today), today);
  const filters = <FilterPanel defs={OVERVIEW_FILTERS} values={view as unknown as Record<string, unknown>} shops={shops} onChange={(patch) => void setView(patch as never)} />;
  // A period whose previous one would begin before 0001-01-01 has nothing to compare with.
  if (!period) {
    return (
      <div className="space-y-4">
        {filters}
        <p role="status" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="overview-period">
          The overview compares a period with the one of the same length before it, and no date before 0001-01-01 exists: choose a later start date.
        </p>
      </div>
    );
  }
  return <OverviewFigures view={view} period={period} filters={filters} first={first} />;
}

function OverviewFigures({ view, period, filters, first }: { view: { shops?: string[] | null }; period: NonNullable<ReturnType<typeof periods>>; filters: React.ReactNode; first?: OverviewAnswer }) {
  const { current, previous } = period;
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
  const gridLink = (extra: Record<string, string>) => `${KINDS.chargeback.pagePath}?${new URLSearchParams({ from: current.from, to: current.to, ...(view.shops?.length ? { shops: view.shops.join(",") } : {}), ...extra })}`;

  return (
    <div className="space-y-4">
      {filters}
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
        <Link href={KINDS.chargeback.pagePath} className="underline">
          Open the chargeback grid
        </Link>
      </p>
    </div>
  );
}
