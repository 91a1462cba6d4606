import { z } from "zod";
import { utcToday } from "@/lib/domain/calendar";
import { ANSWERABLE_STATUSES, DISPUTE_STATUSES, type DisputeStatus } from "@/lib/domain/deadlines";
import { RECORD_KINDS, type RecordKind } from "@/lib/domain/fields";
import { chargebackRecordSchema, preArbitrationRecordSchema } from "./records";
import { type FieldError, LIMITS, SHARED_FIELD_RULES, toFieldErrors } from "./search";

/**
 * The worklist request (docs/api.md, "Worklist"), declared once: it validates requests, gives the
 * TypeScript type and feeds the OpenAPI document. Shop codes, dates, page and per_page follow
 * the searches' rules (docs/api.md, "Request body") and are taken from there.
 */

/** Both record kinds, chargebacks first (the worklist's order within a day). */
export const WORKLIST_KINDS = RECORD_KINDS;


export const worklistRequestSchema = z
  .strictObject({
    shop_codes: SHARED_FIELD_RULES.shop_codes,
    kinds: z
      .array(z.enum(WORKLIST_KINDS, { message: 'must be "chargeback" or "pre_arbitration"' }))
      .max(LIMITS.arrayItemsMax, { message: `must hold at most ${LIMITS.arrayItemsMax} items` })
      .nullish()
      .describe("Kinds of current item to list. Default (omitted, null or []) both."),
    statuses: z
      .array(z.enum(DISPUTE_STATUSES, { message: 'must be "due", "overdue" or "expired"' }))
      .max(LIMITS.arrayItemsMax, { message: `must hold at most ${LIMITS.arrayItemsMax} items` })
      .nullish()
      .describe(
        "Statuses on the date `as_of` to list: due (answer-by date on or after as_of), overdue (answer-by date passed, expiry date not), expired (expiry date, the base date plus the scheme limit, passed). Default (omitted, null or []) due and overdue.",
      ),
    as_of: SHARED_FIELD_RULES.date.nullish().describe("The date the statuses are counted on (YYYY-MM-DD). Default the server's current date in UTC; a dashboard passes the user's own date."),
    answer_by_from: SHARED_FIELD_RULES.date.nullish().describe("First answer-by date to list (inclusive)."),
    answer_by_to: SHARED_FIELD_RULES.date.nullish().describe("Last answer-by date to list (inclusive)."),
    expiry_from: SHARED_FIELD_RULES.date
      .nullish()
      .describe("First expiry date to list (inclusive): the base date plus the scheme limit. An extension: with statuses [\"expired\"] it lists what was missed in a period, such as the last 30 days."),
    expiry_to: SHARED_FIELD_RULES.date.nullish().describe("Last expiry date to list (inclusive). An extension, like expiry_from."),
    page: SHARED_FIELD_RULES.page,
    per_page: SHARED_FIELD_RULES.per_page,
  })
  .superRefine((body, ctx) => {
    if (body.answer_by_from && body.answer_by_to && body.answer_by_from > body.answer_by_to) {
      ctx.addIssue({ code: "custom", path: ["answer_by_from"], message: "must not be after answer_by_to" });
    }
    if (body.expiry_from && body.expiry_to && body.expiry_from > body.expiry_to) {
      ctx.addIssue({ code: "custom", path: ["expiry_from"], message: "must not be after expiry_to" });
    }
  })
  .meta({ id: "WorklistRequest", title: "Worklist request" });

/** A validated worklist request with defaults applied and "no filter" spelled one way: undefined. */
export interface WorklistRequest {
  shop_codes?: string[];
  /** distinct, in the order of WORKLIST_KINDS */
  kinds: RecordKind[];
  /** distinct, in the order of DISPUTE_STATUSES */
  statuses: DisputeStatus[];
  /** the date the statuses are counted on */
  as_of: string;
  answer_by_from?: string;
  answer_by_to?: string;
  expiry_from?: string;
  expiry_to?: string;
  page: number;
  per_page: number;
}

export function parseWorklistRequest(body: unknown, today = utcToday()): { ok: true; request: WorklistRequest } | { ok: false; errors: FieldError[] } {
  const parsed = worklistRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const input = parsed.data;
  const kinds = input.kinds?.length ? WORKLIST_KINDS.filter((kind) => input.kinds!.includes(kind)) : [...WORKLIST_KINDS];
  const statuses = input.statuses?.length ? DISPUTE_STATUSES.filter((status) => input.statuses!.includes(status)) : [...ANSWERABLE_STATUSES];
  return {
    ok: true,
    request: {
      ...(input.shop_codes?.length ? { shop_codes: input.shop_codes } : {}),
      kinds,
      statuses,
      as_of: input.as_of ?? today,
      ...(input.answer_by_from ? { answer_by_from: input.answer_by_from } : {}),
      ...(input.answer_by_to ? { answer_by_to: input.answer_by_to } : {}),
      ...(input.expiry_from ? { expiry_from: input.expiry_from } : {}),
      ...(input.expiry_to ? { expiry_to: input.expiry_to } : {}),
      page: input.page ?? 0,
      per_page: input.per_page ?? LIMITS.perPageDefault,
    },
  };
}

const answerBy = z.string().meta({ format: "date", description: "The answer-by date (YYYY-MM-DD): the base date plus min(acquirer window, scheme limit) days" });
const status = z.enum(DISPUTE_STATUSES).describe("The dispute's status on the request's as_of date");

export const worklistPageSchema = z
  .strictObject({
    content: z
      .array(
        z.discriminatedUnion("kind", [
          z.strictObject({ kind: z.literal("chargeback"), answer_by: answerBy, status, record: chargebackRecordSchema }).meta({ id: "WorklistChargeback" }),
          z.strictObject({ kind: z.literal("pre_arbitration"), answer_by: answerBy, status, record: preArbitrationRecordSchema }).meta({ id: "WorklistPreArbitration" }),
        ]),
      )
      .describe("The page's disputes, each with its current item: answer_by ascending, then chargebacks before cases, then ID ascending"),
    totalPages: z.int().describe("ceil(totalElements / per_page); 0 when nothing matches"),
    totalElements: z.int().describe("Number of disputes that need an answer and match the request (statuses on as_of included), inside the caller's scope"),
  })
  .meta({ id: "WorklistPage" });
