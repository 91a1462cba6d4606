import { z } from "zod";
import type { RecordKind } from "@/lib/domain/fields";
import { ECP_FLOORS, periods } from "@/lib/domain/periods";
import { type FieldError, fromNotAfterTo, SHARED_FIELD_RULES, toFieldErrors } from "./search";
import { chargebackSummaryResponseSchema, type DimensionName, preArbitrationSummaryResponseSchema } from "./summary";

/**
 * POST /api/overview, an extension: every figure of the overview page in one answer, read in one
 * snapshot (docs/api.md, "Overview"). Each part is a summary (the answer of /api/<kind>/summary for the same
 * scope, period and group_by); the Mastercard counts per month are worked out from a summary by
 * month, merchant and scheme. The parts are declared here once: the data module runs them, the
 * page draws them and the OpenAPI document describes them.
 */

interface Part {
  kind: RecordKind;
  /** the chosen period, or the one of the same length before it */
  period: "current" | "previous";
  group_by: readonly DimensionName[];
  description: string;
}

export const OVERVIEW_PARTS = {
  chargebacks: { kind: "chargeback", period: "current", group_by: [], description: "Chargebacks of the period" },
  chargebacks_previous: { kind: "chargeback", period: "previous", group_by: [], description: "Chargebacks of the previous period" },
  pre_arbitrations: { kind: "pre_arbitration", period: "current", group_by: [], description: "Pre-arbitration cases of the period" },
  pre_arbitrations_previous: { kind: "pre_arbitration", period: "previous", group_by: [], description: "Pre-arbitration cases of the previous period" },
  by_month_and_scheme: { kind: "chargeback", period: "current", group_by: ["month", "card_type"], description: "Chargebacks of the period by month and scheme" },
  by_reason: { kind: "chargeback", period: "current", group_by: ["card_type", "reason_code"], description: "Chargebacks of the period by scheme and reason code" },
  by_function_code: { kind: "chargeback", period: "current", group_by: ["function_code"], description: "Chargebacks of the period by function code (the stage)" },
  by_documents: { kind: "chargeback", period: "current", group_by: ["documents"], description: "Chargebacks of the period with and without issuer documents" },
  by_shop: { kind: "chargeback", period: "current", group_by: ["shop_code"], description: "Chargebacks of the period by shop" },
  by_merchant: { kind: "chargeback", period: "current", group_by: ["merchant_id"], description: "Chargebacks of the period by merchant" },
} as const satisfies Record<string, Part>;

export type OverviewPartName = keyof typeof OVERVIEW_PARTS;

/** The summary behind the Mastercard counts: month, merchant and scheme (three dimensions, internal). */
export const ECP_GROUP_BY = ["month", "merchant_id", "card_type"] as const satisfies readonly DimensionName[];

export const overviewRequestSchema = z
  .strictObject({
    shop_codes: SHARED_FIELD_RULES.shop_codes,
    file_date_from: SHARED_FIELD_RULES.date.describe("First file date of the period (inclusive)."),
    file_date_to: SHARED_FIELD_RULES.date.describe("Last file date of the period (inclusive)."),
  })
  .superRefine(fromNotAfterTo)
  .meta({ id: "OverviewRequest", title: "Overview request" });

export interface OverviewRequest {
  shop_codes?: string[];
  file_date_from: string;
  file_date_to: string;
}

export function parseOverviewRequest(body: unknown): { ok: true; request: OverviewRequest } | { ok: false; errors: FieldError[] } {
  const parsed = overviewRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const { shop_codes, file_date_from, file_date_to } = parsed.data;
  if (!periods({ from: file_date_from, to: file_date_to }, file_date_to)) {
    return { ok: false, errors: [{ field: "file_date_from", message: "the previous period of the same length would begin before 0001-01-01" }] };
  }
  return { ok: true, request: { ...(shop_codes?.length ? { shop_codes } : {}), file_date_from, file_date_to } };
}

// ---- The answer (it documents what lib/data/queries/overview.ts writes) ------------------------------

const period = z
  .strictObject({ from: z.string().meta({ format: "date" }), to: z.string().meta({ format: "date" }), days: z.int().describe("Days of the period, both ends included") })
  .meta({ id: "OverviewPeriod" });

export const ecpMonthSchema = z
  .strictObject({
    month: z.string().describe('"YYYY-MM"; every month the period touches, the first and last only for their days inside it'),
    merchants: z.int().describe("Merchants with Mastercard chargebacks (not reversals) in the month"),
    top_merchant: z.string().nullable().describe("The merchant with the most of them (the bytewise first of a tie); null without any"),
    top_count: z.int().describe("Its Mastercard chargebacks in the month"),
    at_excessive: z.int().describe(`Merchants with at least ${ECP_FLOORS.excessive} in the month`),
    at_high_excessive: z.int().describe(`Merchants with at least ${ECP_FLOORS.highExcessive} in the month`),
  })
  .meta({ id: "OverviewExcessiveChargebackMonth" });

const partSchemas = Object.fromEntries(
  Object.entries(OVERVIEW_PARTS).map(([name, part]) => [
    name,
    // The summary schemas themselves (a $ref each); what each part holds is listed in the operation's description.
    part.kind === "chargeback" ? chargebackSummaryResponseSchema : preArbitrationSummaryResponseSchema,
  ]),
) as unknown as Record<OverviewPartName, typeof chargebackSummaryResponseSchema>;

export const overviewResponseSchema = z
  .strictObject({
    period: period.describe("The chosen period"),
    previous: period.describe("The period of the same length just before"),
    ...partSchemas,
    excessive_chargebacks: z
      .array(ecpMonthSchema)
      .describe(
        `Mastercard's Excessive Chargeback Program, as counts: per month, each merchant's Mastercard chargebacks against the floors ${ECP_FLOORS.excessive} and ${ECP_FLOORS.highExcessive}. ` +
          "The program's ratio also needs the merchant's sales counts, which acquirer files do not carry.",
      ),
  })
  .meta({ id: "Overview" });
