import { z } from "zod";
import { fieldLabel, FIELDS_BY_KIND, type RecordKind } from "@/lib/domain/fields";

/**
 * The search requests (docs/api.md, "Request body"), declared once. The same schemas validate requests,
 * give the TypeScript types, feed the OpenAPI document and parse the dashboard's URL state.
 */

export const SORT_ORDERS = ["asc", "desc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const CHARGEBACK_SORT_KEYS = ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR", "FILE_DATE"] as const;
export const PRE_ARBITRATION_SORT_KEYS = ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR"] as const;
export type SortKey = (typeof CHARGEBACK_SORT_KEYS)[number];

export const SORT_KEYS: Record<RecordKind, readonly SortKey[]> = {
  chargeback: CHARGEBACK_SORT_KEYS,
  pre_arbitration: PRE_ARBITRATION_SORT_KEYS,
};

/** The column each sort key orders by (SHOP_CODE: the shop the record belongs to). */
export const SORT_KEY_COLUMNS = {
  ID: "id",
  SHOP_CODE: "shop_code",
  MERCHANT_ID: "merchant_id",
  ACQ_REF_NR: "acq_ref_nr",
  PAYMENT_ORDER_NR: "payment_order_nr",
  FILE_DATE: "file_date",
} as const satisfies Record<SortKey, string>;

/**
 * What the dashboard calls each sort key: the label of the field it orders by (the same for both
 * kinds), or a name of its own for the two keys that order by no record field.
 */
export const SORT_KEY_LABELS: Record<SortKey, string> = {
  ID: "Import order",
  SHOP_CODE: "Shop",
  MERCHANT_ID: fieldLabel("chargeback", SORT_KEY_COLUMNS.MERCHANT_ID),
  ACQ_REF_NR: fieldLabel("chargeback", SORT_KEY_COLUMNS.ACQ_REF_NR),
  PAYMENT_ORDER_NR: fieldLabel("chargeback", SORT_KEY_COLUMNS.PAYMENT_ORDER_NR),
  FILE_DATE: fieldLabel("chargeback", SORT_KEY_COLUMNS.FILE_DATE),
};

/**
 * The sort keys' columns that can hold NULL (a field a file may leave empty: the order number).
 * NULL is the smallest value (docs/api.md, "Selection and order"): first ascending, last descending.
 */
export const NULLABLE_SORT_COLUMNS: ReadonlySet<string> = new Set(
  Object.values(SORT_KEY_COLUMNS).filter((column) => Object.values(FIELDS_BY_KIND).some((fields) => fields.some((def) => def.name === column && !def.required))),
);

/** The endpoint's sort key that orders by a record field, if there is one. */
export function sortKeyOfField(kind: RecordKind, field: string): SortKey | undefined {
  return SORT_KEYS[kind].find((key) => SORT_KEY_COLUMNS[key] === field);
}

export const LIMITS = {
  perPageMin: 10,
  perPageMax: 1000,
  perPageDefault: 10,
  pageMax: 1_000_000,
  arrayItemsMax: 1000,
  stringMax: 100,
  /** A request body's size, in bytes (1 MiB). */
  bodyBytesMax: 1024 * 1024,
} as const;

/**
 * A real calendar date of the years 0001 to 9999: 2026-02-30 has the right shape and is still
 * refused. setUTCFullYear, because Date.UTC reads the years 0 to 99 as 1900 to 1999.
 */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const date = z
  .string()
  .refine(isCalendarDate, { message: "must be a real calendar date YYYY-MM-DD" })
  .meta({ format: "date", example: "2026-03-31" });

const identifier = z
  .string()
  .min(1, { message: "must not be empty" })
  .max(LIMITS.stringMax, { message: `must be at most ${LIMITS.stringMax} characters` });

const identifierList = (what: string) =>
  z
    .array(identifier)
    .max(LIMITS.arrayItemsMax, { message: `must hold at most ${LIMITS.arrayItemsMax} items` })
    .nullish()
    .describe(`${what}; the values combine with OR. An empty array is the same as omitting the field.`);

const common = {
  file_date_from: date.nullish().describe("First file date to return (inclusive)."),
  file_date_to: date.nullish().describe("Last file date to return (inclusive)."),
  shop_codes: identifierList("Shop codes, each inside the caller's access list (else 403)"),
  merchant_id: identifier.nullish().describe("Merchant identification number (MID), exact match."),
  acq_ref_nrs: identifierList("Acquirer reference numbers"),
  payment_order_nrs: identifierList("Order ids / bill numbers in the merchant system"),
  page: z
    .int({ message: "must be a whole number" })
    .min(0, { message: "must be at least 0" })
    .max(LIMITS.pageMax, { message: `must be at most ${LIMITS.pageMax}` })
    .nullish()
    .describe("Page number, from 0. Default 0. A page beyond the last returns an empty content."),
  per_page: z
    .int({ message: "must be a whole number" })
    .min(LIMITS.perPageMin, { message: `must be between ${LIMITS.perPageMin} and ${LIMITS.perPageMax}` })
    .max(LIMITS.perPageMax, { message: `must be between ${LIMITS.perPageMin} and ${LIMITS.perPageMax}` })
    .nullish()
    .describe("Records per page, 10 to 1000. Default 10. Values outside the range are rejected, never clamped."),
  sortOrder: z.enum(SORT_ORDERS).nullish().describe("asc or desc. Default asc. Ties are broken by ID in the same direction."),
};

/** Field rules that other requests share with the searches (docs/api.md, "Request body"), declared once here. */
export const SHARED_FIELD_RULES = { date, shop_codes: common.shop_codes, page: common.page, per_page: common.per_page } as const;

/** file_date_from must not be after file_date_to (shared by every request that has the range). */
export function fromNotAfterTo(body: { file_date_from?: string | null; file_date_to?: string | null }, ctx: z.RefinementCtx) {
  if (body.file_date_from && body.file_date_to && body.file_date_from > body.file_date_to) {
    ctx.addIssue({ code: "custom", path: ["file_date_from"], message: "must not be after file_date_to" });
  }
}

export const chargebackSearchSchema = z
  .strictObject({
    ...common,
    parent_merchant_id: identifier.nullish().describe("Parent MID in a two-level merchant hierarchy, exact match."),
    transaction_ids: identifierList("Network-assigned transaction ids"),
    sortKey: z.enum(CHARGEBACK_SORT_KEYS).nullish().describe("Sort key. Default ID (import order)."),
  })
  .superRefine(fromNotAfterTo)
  .meta({ id: "ChargebackSearch", title: "Chargeback search" });

export const preArbitrationSearchSchema = z
  .strictObject({
    ...common,
    payment_ids: identifierList("Payment ids in the processing system"),
    sortKey: z.enum(PRE_ARBITRATION_SORT_KEYS).nullish().describe("Sort key. Default ID (import order). No FILE_DATE key."),
  })
  .superRefine(fromNotAfterTo)
  .meta({ id: "PreArbitrationSearch", title: "Pre-arbitration search" });

export const SEARCH_SCHEMAS = {
  chargeback: chargebackSearchSchema,
  pre_arbitration: preArbitrationSearchSchema,
} as const;

/** A validated request with defaults applied and "no filter" spelled one way: undefined. */
export interface SearchRequest {
  file_date_from?: string;
  file_date_to?: string;
  shop_codes?: string[];
  merchant_id?: string;
  parent_merchant_id?: string;
  acq_ref_nrs?: string[];
  transaction_ids?: string[];
  payment_ids?: string[];
  payment_order_nrs?: string[];
  page: number;
  per_page: number;
  sortKey: SortKey;
  sortOrder: SortOrder;
}

export interface FieldError {
  field: string;
  message: string;
}

/** "shop_codes", 2 -> "shop_codes[2]"; the body itself is "". */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), "");
}

/** Zod's issues as the API's field errors (docs/api.md, "Errors"): unknown fields by their own name, the body as "". */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ field: fieldPath([...issue.path, key]), message: "is not a field of this request" });
    } else if (issue.code === "invalid_type" && issue.path.length === 0) {
      out.push({ field: "", message: "the body must be a JSON object" });
    } else {
      out.push({ field: fieldPath(issue.path), message: issue.message });
    }
  }
  return out;
}

export type ParseResult = { ok: true; request: SearchRequest } | { ok: false; errors: FieldError[] };

export function parseSearchRequest(kind: RecordKind, body: unknown): ParseResult {
  const parsed = SEARCH_SCHEMAS[kind].safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const input = parsed.data as Record<string, unknown>;
  const request: SearchRequest = {
    page: (input.page as number | null | undefined) ?? 0,
    per_page: (input.per_page as number | null | undefined) ?? LIMITS.perPageDefault,
    sortKey: (input.sortKey as SortKey | null | undefined) ?? "ID",
    sortOrder: (input.sortOrder as SortOrder | null | undefined) ?? "asc",
  };
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === undefined || key in request) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    (request as unknown as Record<string, unknown>)[key] = value;
  }
  return { ok: true, request };
}
