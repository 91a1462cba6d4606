"use client";

import type { z } from "zod";
import { postApi } from "@/components/shared/api";
import { KINDS, type RecordKind } from "@/lib/domain/kinds";
import type { chargebackSummaryGroupSchema, chargebackSummaryResponseSchema, preArbitrationSummaryGroupSchema } from "@/lib/schemas/summary";

/**
 * The answer of POST /api/chargeback/summary and /api/pre_arbitration/summary (docs/api.md,
 * "Summaries"), as lib/schemas/summary.ts declares it (types only: no schema code is needed here).
 */
export type ChargebackGroup = z.infer<typeof chargebackSummaryGroupSchema>;
export type PreArbitrationGroup = z.infer<typeof preArbitrationSummaryGroupSchema>;
export type SummaryGroup = ChargebackGroup | PreArbitrationGroup;
export type Summary = Omit<z.infer<typeof chargebackSummaryResponseSchema>, "groups"> & { groups: SummaryGroup[] };

/** A summary read while the page rendered, for the request it answers (the text, parsed as a fetch would). */
export interface ReportAnswer {
  request: Record<string, unknown>;
  json: string;
}

export function fetchSummary(kind: RecordKind, body: Record<string, unknown>, signal?: AbortSignal): Promise<Summary> {
  return postApi<Summary>(`${KINDS[kind].apiPath}/summary`, body, signal);
}
