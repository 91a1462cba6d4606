import type { Metadata } from "next";
import { createLoader, type SearchParams } from "nuqs/server";
import { Suspense } from "react";
import type { OverviewAnswer } from "@/components/overview/overview-api";
import { OverviewView } from "@/components/overview/overview-view";
import { requireUser } from "@/lib/auth/current-user";
import { overview } from "@/lib/data/queries/overview";
import { utcToday } from "@/lib/domain/calendar";
import { periods } from "@/lib/domain/periods";
import { errorFields, log } from "@/lib/log";
import { withPresetDates } from "@/lib/url-state/dispute-view";
import { overviewParsers } from "@/lib/url-state/overview";

export const metadata: Metadata = { title: "Overview" };

const loadView = createLoader(overviewParsers);

/**
 * The overview's figures are read while the page renders, so they arrive with it instead of one
 * round trip after the page has started. Without dates in the URL the period ends on the user's
 * today, and a preset's dates are counted from it, which only the browser knows: the server takes
 * its own (UTC) date, and the page asks the API again only when the browser's differs. Shops
 * outside the user's access are left to the API, which refuses them (403) as it refuses every
 * request.
 */
async function firstAnswer(access: readonly string[], searchParams: SearchParams): Promise<OverviewAnswer | undefined> {
  const today = utcToday();
  const view = withPresetDates(loadView(searchParams), today);
  if (view.shops?.some((shop) => !access.includes(shop))) return undefined;
  const period = periods(view, today);
  if (!period) return undefined;
  const request = { ...(view.shops?.length ? { shop_codes: view.shops } : {}), file_date_from: period.current.from, file_date_to: period.current.to };
  try {
    const result = await overview(request, access);
    return result.ok ? { request, json: result.json } : undefined;
  } catch (err) {
    // The browser asks the API, which answers the error the user should see (e.g. 503).
    log.warn(errorFields(err), "overview not read with the page");
    return undefined;
  }
}

export default async function Page({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requireUser();
  const first = await firstAnswer(user.access, await searchParams);
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">Overview</h1>
      <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
        <OverviewView shops={user.access} first={first} />
      </Suspense>
    </>
  );
}
