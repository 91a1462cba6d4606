import { z } from "zod";
import type { RecordKind } from "@/lib/domain/fields";
import { chargebackSearchSchema, type FieldError, fromNotAfterTo, preArbitrationSearchSchema, type SearchRequest, toFieldErrors } from "./search";

/**
 * The summary requests (docs/api.md, "Summaries"): the filters of the endpoint's search (its schema without
 * paging and sorting, so a filter is declared once) plus `group_by`. The dimensions are declared
 * here once per endpoint; the schema, the SQL (lib/data/queries/summary.ts) and the OpenAPI document
 * derive from them.
 */

/** How a group's key value is written: "YYYY-MM" of file_date, "YYYY-MM-DD", a string, a JSON integer. */
export type DimensionKey = "month" | "date" | "string" | "integer";

export interface Dimension {
  /** the record column the key is taken from */
  column: string;
  key: DimensionKey;
  description: string;
  /** the key as a SQL expression over the record's columns, when it is not the column itself */
  expression?: string;
}

const common = {
  month: { column: "file_date", key: "month", description: 'Month of the file date, "YYYY-MM"' },
  file_date: { column: "file_date", key: "date", description: 'File date, "YYYY-MM-DD"' },
  shop_code: { column: "shop_code", key: "string", description: "The shop the records belong to" },
  merchant_id: { column: "merchant_id", key: "string", description: "Merchant id (MID)" },
} as const satisfies Record<string, Dimension>;

export const SUMMARY_DIMENSIONS = {
  chargeback: {
    ...common,
    card_type: { column: "card_type", key: "string", description: "Scheme (MC or VISA)" },
    reason_code: { column: "reason_code", key: "integer", description: "Reason code" },
    function_code: { column: "function_code", key: "integer", description: "Function code" },
    // An extension of the summaries' dimensions, for the overview's share of chargebacks with issuer documents.
    documents: {
      column: "doc_indicator",
      key: "string",
      description: 'Extension: "yes" when the issuer sent supporting documents (doc_indicator 1), else "no"',
      expression: "case when doc_indicator = '1' then 'yes' else 'no' end",
    },
  },
  pre_arbitration: {
    ...common,
    case_stage: { column: "case_stage", key: "string", description: "Case stage" },
  },
} as const satisfies Record<RecordKind, Record<string, Dimension>>;

export type DimensionName = keyof (typeof SUMMARY_DIMENSIONS)["chargeback"] | keyof (typeof SUMMARY_DIMENSIONS)["pre_arbitration"];

export const dimensionNames = (kind: RecordKind) => Object.keys(SUMMARY_DIMENSIONS[kind]) as DimensionName[];

export function dimensionOf(kind: RecordKind, name: DimensionName): Dimension {
  return (SUMMARY_DIMENSIONS[kind] as Record<string, Dimension>)[name];
}

export const MAX_GROUP_BY = 2;
export const MAX_GROUPS = 10_000;

/** The search's fields that page and sort: a summary has neither. */
const PAGING = ["page", "per_page", "sortKey", "sortOrder"] as const;

function filtersOf<S extends Record<string, z.ZodType>>(shape: S): Omit<S, (typeof PAGING)[number]> {
  return Object.fromEntries(Object.entries(shape).filter(([key]) => !(PAGING as readonly string[]).includes(key))) as Omit<S, (typeof PAGING)[number]>;
}

function groupBy(kind: RecordKind) {
  const names = dimensionNames(kind);
  return z
    .array(z.enum(names as [DimensionName, ...DimensionName[]], { message: `must be one of ${names.join(", ")}` }))
    // The count is checked here rather than by .max(), which would also measure a string's
    // length and name the field twice.
    .superRefine((dims, ctx) => {
      if (dims.length > MAX_GROUP_BY) ctx.addIssue({ code: "custom", message: `must name at most ${MAX_GROUP_BY} dimensions` });
      dims.forEach((dim, i) => {
        if (dims.indexOf(dim) < i) ctx.addIssue({ code: "custom", path: [i], message: `repeats ${dim}` });
      });
    })
    .meta({ maxItems: MAX_GROUP_BY })
    .nullish()
    .describe(
      `0 to ${MAX_GROUP_BY} distinct dimensions (${names.join(", ")}). Default []: one group for the whole selection. ` +
        `Groups are ordered by their key values in this order, ascending; more than ${MAX_GROUPS} groups answer 400.`,
    );
}

export const chargebackSummarySchema = z
  .strictObject({ ...filtersOf(chargebackSearchSchema.shape), group_by: groupBy("chargeback") })
  .superRefine(fromNotAfterTo)
  .meta({ id: "ChargebackSummaryRequest", title: "Chargeback summary request" });

export const preArbitrationSummarySchema = z
  .strictObject({ ...filtersOf(preArbitrationSearchSchema.shape), group_by: groupBy("pre_arbitration") })
  .superRefine(fromNotAfterTo)
  .meta({ id: "PreArbitrationSummaryRequest", title: "Pre-arbitration summary request" });

export const SUMMARY_SCHEMAS = {
  chargeback: chargebackSummarySchema,
  pre_arbitration: preArbitrationSummarySchema,
} as const;

/** A validated summary request: the search's filters ("no filter" spelled undefined) and the dimensions. */
export type SummaryRequest = Omit<SearchRequest, (typeof PAGING)[number]> & { group_by: DimensionName[] };

export type SummaryParseResult = { ok: true; request: SummaryRequest } | { ok: false; errors: FieldError[] };

export function parseSummaryRequest(kind: RecordKind, body: unknown): SummaryParseResult {
  const parsed = SUMMARY_SCHEMAS[kind].safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const request: SummaryRequest = { group_by: [] };
  for (const [key, value] of Object.entries(parsed.data as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    (request as unknown as Record<string, unknown>)[key] = value;
  }
  return { ok: true, request };
}

// ---- Responses (they document what lib/data/queries/summary.ts writes) -------------------------------

const amountNumber = (what: string) =>
  z.number().meta({ description: `${what}. Exact decimal written with exactly two decimals, e.g. 1234.50.`, examples: [1234.5] });

function keySchema(kind: RecordKind) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, dim] of Object.entries(SUMMARY_DIMENSIONS[kind]) as [string, Dimension][]) {
    const base = dim.key === "integer" ? z.int() : dim.key === "date" ? z.string().meta({ format: "date" }) : z.string();
    shape[name] = base.optional().describe(dim.description);
  }
  return z.strictObject(shape).describe("The group's value of each dimension of group_by, and nothing else ({} without group_by)");
}

const chargebackAmount = z
  .strictObject({
    currency: z.string().describe("chb_ccy of the records (ISO 4217); one entry per currency, ordered by currency"),
    chb_amount: amountNumber("Sum of chb_amount over the group's records in this currency that are not reversals"),
    reversal_amount: amountNumber('Sum of chb_amount over the group\'s reversals (rev_indicator "R") in this currency'),
  })
  .meta({ id: "ChargebackSummaryAmount" });

const preArbitrationAmount = z
  .strictObject({
    currency: z.string().describe("ccy of the records (ISO 4217); one entry per currency, ordered by currency"),
    amount: amountNumber("Sum of amount over the group's records in this currency"),
  })
  .meta({ id: "PreArbitrationSummaryAmount" });

const count = z.int().describe("Records of the group");

export const chargebackSummaryGroupSchema = z
  .strictObject({
    key: keySchema("chargeback"),
    count,
    reversals: z.int().describe('Records of the group whose rev_indicator is "R"'),
    amounts: z.array(chargebackAmount).describe("Sums per currency; amounts of different currencies are never added together"),
  })
  .meta({ id: "ChargebackSummaryGroup" });

export const preArbitrationSummaryGroupSchema = z
  .strictObject({
    key: keySchema("pre_arbitration"),
    count,
    amounts: z.array(preArbitrationAmount).describe("Sums per currency; amounts of different currencies are never added together"),
  })
  .meta({ id: "PreArbitrationSummaryGroup" });

const summary = <G extends z.ZodType>(group: G, id: string) =>
  z
    .strictObject({
      groups: z.array(group).describe("With group_by []: exactly one group with key {}, even when nothing matches. Otherwise the groups that have records, ordered by key"),
      totalElements: z.int().describe("Records of the selection inside the caller's scope: the search's totalElements for the same filters"),
    })
    .meta({ id });

export const chargebackSummaryResponseSchema = summary(chargebackSummaryGroupSchema, "ChargebackSummary");
export const preArbitrationSummaryResponseSchema = summary(preArbitrationSummaryGroupSchema, "PreArbitrationSummary");
