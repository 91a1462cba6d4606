import { z } from "zod";
import { chargebackPageSchema, preArbitrationPageSchema, problemSchema } from "@/lib/schemas/records";
import { chargebackSearchSchema, LIMITS, preArbitrationSearchSchema } from "@/lib/schemas/search";
import { worklistPageSchema, worklistRequestSchema } from "@/lib/schemas/worklist";
import { OVERVIEW_PARTS, overviewRequestSchema, overviewResponseSchema } from "@/lib/schemas/overview";
import { shopsRequestSchema, shopsResponseSchema } from "@/lib/schemas/shops";
import { chargebackSummaryResponseSchema, chargebackSummarySchema, MAX_GROUPS, preArbitrationSummaryResponseSchema, preArbitrationSummarySchema } from "@/lib/schemas/summary";

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas that validate requests and
 * describe responses, so it cannot drift from what the server does.
 */

type JsonObject = Record<string, unknown>;

/** Turns one zod schema into JSON Schema, moving its named parts into components.schemas. */
function collect(schema: z.ZodType, io: "input" | "output", components: JsonObject): JsonObject {
  const json = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as JsonObject;
  const defs = (json.$defs ?? {}) as Record<string, JsonObject>;
  delete json.$schema;
  delete json.$defs;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === "object") {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] = k === "$ref" && typeof v === "string" ? v.replace("#/$defs/", "#/components/schemas/") : rewrite(v);
      }
      return out;
    }
    return value;
  };
  for (const [name, def] of Object.entries(defs)) components[name] = rewrite(def);
  return rewrite(json) as JsonObject;
}

const problem = (description: string, headers?: JsonObject) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer" } } };

/**
 * One POST operation. Its operationId is what a generated client names the call (searchChargebacks,
 * ...): stable camelCase, never renamed, since renaming one breaks every client generated before.
 */
function operation(operationId: string, summary: string, description: string, request: JsonObject, response: JsonObject) {
  return {
    post: {
      operationId,
      summary,
      description,
      security: [{ ShopCode: [], Nonce: [], Signature: [] }, { SessionCookie: [] }],
      requestBody: {
        required: false,
        description: "A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused.",
        content: { "application/json": { schema: request } },
      },
      responses: {
        "200": { description: "One page of the selection with exact totals", content: { "application/json": { schema: response } } },
        "400": problem("Invalid JSON, a body that is not an object, or a broken field rule; `errors` names each offending field"),
        "401": problem("Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all)"),
        "403": problem("shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin"),
        "405": problem("A method other than POST", { Allow: { description: "Always POST", schema: { type: "string", const: "POST" } } }),
        "413": problem(`A body over ${LIMITS.bodyBytesMax} bytes (1 MiB)`),
        "415": problem("A content type other than application/json, or a charset other than utf-8"),
        "429": problem("More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute)", retryAfter),
        "500": problem("An unexpected error; the body never holds internals"),
        "503": problem("The database is unreachable", retryAfter),
      },
    },
  };
}

const RULES = [
  "Filters combine with AND; the values of one array filter combine with OR; string matches are exact and case-sensitive.",
  "The file date range is inclusive at both ends.",
  "Order: sortKey in sortOrder, then the internal ID (import order) in the same direction. Strings compare bytewise; NULL sorts first ascending and last descending.",
  `per_page ${LIMITS.perPageMin}..${LIMITS.perPageMax} (default ${LIMITS.perPageDefault}); page 0..${LIMITS.pageMax}; arrays at most ${LIMITS.arrayItemsMax} items of 1..${LIMITS.stringMax} characters.`,
  "A page beyond the last answers 200 with empty content and the same totals.",
  "Checks run in this order and the first failure answers: method (405), content type (415), body size (413), authentication (401), rate limit (429), validity (400), scope (403).",
].join("\n\n");

// ---- Extensions of the seed API: the summaries (docs/api.md, "Summaries") -----------------

const EXTENSIONS_TAG = {
  name: "Extensions",
  description: "Endpoints this service adds to the two record searches (summaries, worklist, overview); the searches are unchanged by them.",
};

function summaryOperation(operationId: string, kind: string, request: JsonObject, response: JsonObject) {
  const op = operation(
    operationId,
    `Summarise ${kind}`,
    `Extension of the seed API. Counts and exact sums per currency of the ${kind} that the search with the same filters returns (no paging or sorting), ` +
      "grouped by 0 to 2 dimensions, so that nobody adds up pages. Amounts of different currencies are never added together. " +
      "Authentication, scope, errors and the order of checks are those of the searches.",
    request,
    response,
  ).post;
  return {
    post: {
      ...op,
      tags: [EXTENSIONS_TAG.name],
      responses: {
        ...op.responses,
        "200": { description: "The groups of the selection and its totalElements", content: { "application/json": { schema: response } } },
        "400": problem(`As for the searches, or group_by names an unknown or repeated dimension or more than two (field group_by or group_by[i]), or the selection gives more than ${MAX_GROUPS} groups (field group_by)`),
      },
    },
  };
}

function summaryPaths(schemas: JsonObject) {
  return {
    "/api/chargeback/summary": summaryOperation("summarizeChargebacks", "chargebacks", collect(chargebackSummarySchema, "input", schemas), collect(chargebackSummaryResponseSchema, "output", schemas)),
    "/api/pre_arbitration/summary": summaryOperation(
      "summarizePreArbitrations",
      "pre-arbitration cases",
      collect(preArbitrationSummarySchema, "input", schemas),
      collect(preArbitrationSummaryResponseSchema, "output", schemas),
    ),
  };
}

/** The worklist (docs/api.md, "Worklist"), an extension beside the two searches. */
function worklistPath(schemas: JsonObject): JsonObject {
  const op = operation(
    "listWorklist",
    "Worklist: disputes that need an answer, with their status on a date",
    "A dispute is the records (chargebacks and cases) of one shop with the same acq_ref_nr; its current item is its latest case (case_date, then ID), else its latest chargeback (chb_proc_date, then ID). " +
      "It needs an answer when the current item has no merchant_decision, is not a reversal and, for a chargeback, has function code 450, 451, 453 or 454. " +
      "answer_by = base date (chb_proc_date or case_date) + min(DEADLINE_DAYS_<scheme>_<stage>, SCHEME_LIMIT_DAYS_<scheme>_<stage>) calendar days; scheme: card_type, or for a case the BIN (4 VISA, 51-55 and 2221-2720 MC, else the earlier of both). " +
      "Its expiry date = base date + SCHEME_LIMIT_DAYS_<scheme>_<stage> (for an unknown scheme, the limit of the scheme that gave answer_by, the smaller on a tie). " +
      "On the date as_of it is due (answer_by >= as_of), overdue (answer_by < as_of <= expiry date) or expired (expiry date < as_of): an expired dispute can no longer be answered, so by default only due and overdue disputes are listed. " +
      "Order: answer_by ascending, chargebacks before cases, then ID ascending; exact totals.",
    collect(worklistRequestSchema, "input", schemas),
    collect(worklistPageSchema, "output", schemas),
  );
  return { "/api/worklist": { post: { ...op.post, tags: [EXTENSIONS_TAG.name] } } };
}

/** The overview page's figures in one answer (lib/schemas/overview.ts), an extension. */
function overviewPath(schemas: JsonObject): JsonObject {
  const parts = Object.entries(OVERVIEW_PARTS).map(([name, part]) => `\`${name}\`: ${part.description.toLowerCase()}, the ${part.kind} summary with group_by ${JSON.stringify(part.group_by)}`);
  const op = operation(
    "getOverview",
    "Overview of a period",
    "Extension of the seed API. The figures of the dashboard's overview in one answer, read in one snapshot: for the chosen file-date period and the one of the same length just before it, " +
      "within the scope (shop_codes, else the caller's access list), these summaries, each exactly what the summary endpoint answers for the same filters:\n\n" +
      parts.map((p) => `- ${p}`).join("\n") +
      "\n\nand `excessive_chargebacks`, Mastercard's Excessive Chargeback Program as counts per month and merchant. Authentication, scope, errors and the order of checks are those of the searches.",
    collect(overviewRequestSchema, "input", schemas),
    collect(overviewResponseSchema, "output", schemas),
  ).post;
  return {
    "/api/overview": {
      post: {
        ...op,
        tags: [EXTENSIONS_TAG.name],
        requestBody: { ...op.requestBody, required: true, description: "A JSON object with the period's two dates; unknown fields are refused." },
        responses: {
          ...op.responses,
          "200": { description: "The period, the previous period, the summaries and the Mastercard counts", content: { "application/json": { schema: collect(overviewResponseSchema, "output", schemas) } } },
          "400": problem(`As for the searches (both dates are required), or the previous period would begin before 0001-01-01, or a part gives more than ${MAX_GROUPS} groups (field shop_codes)`),
        },
      },
    },
  };
}

/** The shop directory (docs/api.md, "Shop directory"), an extension. */
function shopsPath(schemas: JsonObject): JsonObject {
  const response = collect(shopsResponseSchema, "output", schemas);
  const op = operation(
    "listShops",
    "Shop directory: the merchant and parent merchant of each shop",
    "Extension of the seed API. One entry per shop code of the caller's access list, in bytewise order: the merchant id and name of the shop's last record in its latest file of either kind " +
      "(greatest file date, then the later import), and the parent merchant id and name of its last record in its latest chargeback file (pre-arbitration records carry none). " +
      "Null where the shop has no such record. The body takes no fields. Authentication, errors and the order of checks are those of the searches.",
    collect(shopsRequestSchema, "input", schemas),
    response,
  ).post;
  return {
    "/api/shops": {
      post: {
        ...op,
        tags: [EXTENSIONS_TAG.name],
        requestBody: { ...op.requestBody, description: "An empty JSON object (or an empty body); any field is refused." },
        responses: {
          ...op.responses,
          "200": { description: "The caller's shops with their merchants", content: { "application/json": { schema: response } } },
          "400": problem("Invalid JSON, a body that is not an object, or any field (each named in errors)"),
          "403": problem("A cookie-authenticated request came from another origin"),
        },
      },
    },
  };
}

let cached: JsonObject | undefined;

export function openApiDocument(): JsonObject {
  if (cached) return cached;
  const schemas: JsonObject = {};
  const cbRequest = collect(chargebackSearchSchema, "input", schemas);
  const paRequest = collect(preArbitrationSearchSchema, "input", schemas);
  const cbPage = collect(chargebackPageSchema, "output", schemas);
  const paPage = collect(preArbitrationPageSchema, "output", schemas);
  collect(problemSchema, "output", schemas);
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Chargeback and pre-arbitration reporting API",
      version: "1",
      description:
        "Read-only searches over the chargeback and pre-arbitration records reported by the acquirer, scoped to the caller's shops.\n\n" +
        "Every request is signed: `X-Shop-Code` names the calling shop, `X-Nonce` is 16 to 128 characters of `A-Z a-z 0-9 . _ ~ : -` and new for every request (a nonce used in the last 24 hours is refused), and `X-Signature` is the lowercase hex SHA-256 of the nonce immediately followed by the shop's password. Signed-in dashboard users use their session cookie instead.\n\n" +
        RULES,
      // The service is the acquirer's own, offered to its merchants: no open-source licence applies.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Relative to the document's own address: each deployment (and a test server) is "this server".
    servers: [{ url: "/", description: "This server: the host that serves this document" }],
    paths: {
      "/api/chargeback": operation("searchChargebacks", "Search chargebacks", "Returns a page of chargeback records. Fields and how they are written: docs/api.md, \"Response body\".", cbRequest, cbPage),
      "/api/pre_arbitration": operation("searchPreArbitrations", "Search pre-arbitration cases", "Returns a page of pre-arbitration records. Fields and how they are written: docs/api.md, \"Response body\".", paRequest, paPage),
      ...summaryPaths(schemas),
      ...worklistPath(schemas),
      ...overviewPath(schemas),
      ...shopsPath(schemas),
    },
    tags: [EXTENSIONS_TAG],
    components: {
      schemas,
      securitySchemes: {
        ShopCode: { type: "apiKey", in: "header", name: "X-Shop-Code", description: "The calling shop's code" },
        Nonce: { type: "apiKey", in: "header", name: "X-Nonce", description: "16-128 characters of A-Z a-z 0-9 . _ ~ : -, new for every request" },
        Signature: { type: "apiKey", in: "header", name: "X-Signature", description: "Lowercase hex SHA-256 of X-Nonce followed by the shop's password" },
        SessionCookie: { type: "apiKey", in: "cookie", name: "dr_session", description: "Dashboard session; same-origin requests only" },
      },
    },
  };
  return cached;
}
