"use client";

import { postApi } from "@/components/disputes/api";

/** Groups of the summaries of CONTRACT 9, as POST /api/overview holds them. */
export interface ChargebackGroup {
  key: Record<string, string | number>;
  count: number;
  reversals: number;
  amounts: { currency: string; chb_amount: number; reversal_amount: number }[];
}

export interface PreArbitrationGroup {
  key: Record<string, string | number>;
  count: number;
  amounts: { currency: string; amount: number }[];
}

export interface Summary<G> {
  groups: G[];
  totalElements: number;
}

/** One month of Mastercard's Excessive Chargeback Program counts (lib/schemas/overview.ts). */
export interface EcpMonth {
  month: string;
  merchants: number;
  top_merchant: string | null;
  top_count: number;
  at_excessive: number;
  at_high_excessive: number;
}

interface OverviewPeriod {
  from: string;
  to: string;
  days: number;
}

/** The answer of POST /api/overview: the page's summaries, read in one snapshot. */
export interface Overview {
  period: OverviewPeriod;
  previous: OverviewPeriod;
  chargebacks: Summary<ChargebackGroup>;
  chargebacks_previous: Summary<ChargebackGroup>;
  pre_arbitrations: Summary<PreArbitrationGroup>;
  pre_arbitrations_previous: Summary<PreArbitrationGroup>;
  by_month_and_scheme: Summary<ChargebackGroup>;
  by_reason: Summary<ChargebackGroup>;
  by_function_code: Summary<ChargebackGroup>;
  by_documents: Summary<ChargebackGroup>;
  by_shop: Summary<ChargebackGroup>;
  by_merchant: Summary<ChargebackGroup>;
  excessive_chargebacks: EcpMonth[];
}

export type OverviewRequestBody = {
  shop_codes?: string[];
  file_date_from: string;
  file_date_to: string;
};

/** An answer read while the page rendered, for the request it answers (the text, parsed as a fetch would). */
export interface OverviewAnswer {
  request: OverviewRequestBody;
  json: string;
}

export function fetchOverview(body: OverviewRequestBody, signal?: AbortSignal) {
  return postApi<Overview>("/api/overview", body, signal);
}
