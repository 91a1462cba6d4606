"use client";

import type { z } from "zod";
import { postApi } from "@/components/shared/api";
import type { ecpMonthSchema, OVERVIEW_PARTS, OverviewPartName, OverviewRequest, overviewResponseSchema } from "@/lib/schemas/overview";
import type { chargebackSummaryGroupSchema, chargebackSummaryResponseSchema, preArbitrationSummaryGroupSchema } from "@/lib/schemas/summary";

/**
 * The answer of POST /api/overview, as its schemas declare it (lib/schemas/overview.ts and
 * summary.ts; types only, no schema code reaches the browser).
 */
export type ChargebackGroup = z.infer<typeof chargebackSummaryGroupSchema>;
export type PreArbitrationGroup = z.infer<typeof preArbitrationSummaryGroupSchema>;
export type EcpMonth = z.infer<typeof ecpMonthSchema>;

/** A summary (docs/api.md, "Summaries") with groups of one kind. */
export type Summary<G> = Omit<z.infer<typeof chargebackSummaryResponseSchema>, "groups"> & { groups: G[] };

type PartOf<K extends OverviewPartName> = (typeof OVERVIEW_PARTS)[K]["kind"] extends "chargeback" ? Summary<ChargebackGroup> : Summary<PreArbitrationGroup>;

/** The page's summaries, read in one snapshot. */
export type Overview = Omit<z.infer<typeof overviewResponseSchema>, OverviewPartName> & { [K in OverviewPartName]: PartOf<K> };

// A type alias (not the interface itself), so that it passes as a JSON body.
export type OverviewRequestBody = Pick<OverviewRequest, keyof OverviewRequest>;

/** An answer read while the page rendered, for the request it answers (the text, parsed as a fetch would). */
export interface OverviewAnswer {
  request: OverviewRequestBody;
  json: string;
}

export function fetchOverview(body: OverviewRequestBody, signal?: AbortSignal) {
  return postApi<Overview>("/api/overview", body, signal);
}
