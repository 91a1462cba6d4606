import type { Metadata } from "next";
import { createLoader, type SearchParams } from "nuqs/server";
import { Suspense } from "react";
import type { ReportAnswer } from "@/components/report/report-api";
import { ReportView } from "@/components/report/report-view";
import { requireUser } from "@/lib/auth/current-user";
import { summarize } from "@/lib/data/queries/summary";
import { utcToday } from "@/lib/domain/calendar";
import { errorFields, log } from "@/lib/log";
import { parseSummaryRequest } from "@/lib/schemas/summary";
import { reportBody, reportLayout, reportParsers } from "@/lib/url-state/report";

export const metadata: Metadata = { title: "Report" };

const loadView = createLoader(reportParsers);

/**
 * The report's table is read while the page renders, through the same data function as
 * POST /api/<kind>/summary, so it arrives with the page instead of one round trip after it. Anything
 * the API would refuse (an invalid request, shops outside the user's access, too many groups) is
 * left to the browser's request, which shows the API's own answer.
 */
async function firstAnswer(access: readonly string[], searchParams: SearchParams): Promise<ReportAnswer | undefined> {
  const view = loadView(searchParams);
  const layout = reportLayout(view);
  // A date preset counts from the server's (UTC) date; when the browser's differs, it asks again.
  const request = reportBody(layout, view as unknown as Record<string, unknown>, utcToday());
  const parsed = parseSummaryRequest(layout.kind, request);
  if (!parsed.ok || parsed.request.shop_codes?.some((shop) => !access.includes(shop))) return undefined;
  try {
    const result = await summarize(layout.kind, parsed.request, access);
    return result.ok ? { request, json: result.json } : undefined;
  } catch (err) {
    log.warn(errorFields(err), "report not read with the page");
    return undefined;
  }
}

export default async function Page({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requireUser();
  const first = await firstAnswer(user.access, await searchParams);
  return (
    <>
      <h1 className="mb-3 text-xl font-semibold">Report</h1>
      {/* The view reads the URL on the client; Suspense lets the server send the frame first. */}
      <Suspense fallback={<p className="text-sm text-slate-700">Loading…</p>}>
        <ReportView shops={user.access} first={first} />
      </Suspense>
    </>
  );
}
