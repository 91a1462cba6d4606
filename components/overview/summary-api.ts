"use client";

import { postApi } from "@/components/disputes/api";
import type { RecordKind } from "@/lib/domain/fields";

/** Answers of POST /api/chargeback/summary and /api/pre_arbitration/summary (CONTRACT 9). */
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

const PATHS: Record<RecordKind, string> = { chargeback: "/api/chargeback/summary", pre_arbitration: "/api/pre_arbitration/summary" };

export function fetchSummary<K extends RecordKind>(kind: K, body: Record<string, unknown>, signal?: AbortSignal) {
  return postApi<Summary<K extends "chargeback" ? ChargebackGroup : PreArbitrationGroup>>(PATHS[kind], body, signal);
}
