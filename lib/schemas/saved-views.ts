import { z } from "zod";
import { KINDS } from "@/lib/domain/kinds";
import { type FieldError, toFieldErrors } from "./search";

/**
 * Saved views (docs/api.md, "Saved views"), an extension for dashboard users: a named address
 * (page and query string) with the grid's column choice, kept on the server per user. The
 * requests are declared here once; lib/data/user-state/saved-views.ts stores them, lib/api routes them.
 */

/** The dashboard pages a view can belong to; the two grids' paths are the kinds' own (lib/domain/kinds.ts). */
export const VIEW_PAGES = ["/worklist", "/overview", KINDS.chargeback.pagePath, KINDS.pre_arbitration.pagePath, "/report"] as const;
export type ViewPage = (typeof VIEW_PAGES)[number];

export const VIEW_LIMITS = { perUser: 100, nameMax: 200, queryMax: 4000, columnsMax: 200 } as const;

/** A column id's length. */
const COLUMN_KEY_MAX = 100;

const CONTROL = /\p{Cc}/u;
// A lone UTF-16 surrogate (JSON may carry one) is no text: it cannot be stored as UTF-8.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const name = z
  .string()
  .trim()
  .min(1, { message: "must not be empty" })
  .max(VIEW_LIMITS.nameMax, { message: `must be at most ${VIEW_LIMITS.nameMax} characters` })
  .refine((s) => !CONTROL.test(s) && !LONE_SURROGATE.test(s), { message: "must not contain control characters" })
  .describe(`The view's name, trimmed: 1 to ${VIEW_LIMITS.nameMax} characters without control characters, unique per user regardless of letter case.`);

const page = z.enum(VIEW_PAGES, { message: `must be one of ${VIEW_PAGES.join(", ")}` }).describe("The dashboard page the view opens.");

const query = z
  .string()
  .max(VIEW_LIMITS.queryMax, { message: `must be at most ${VIEW_LIMITS.queryMax} characters` })
  .refine((s) => s === "" || s.startsWith("?"), { message: 'must be "" or start with "?"' })
  .refine((s) => !CONTROL.test(s) && !LONE_SURROGATE.test(s), { message: "must not contain control characters" })
  .describe(`The page's query string as the address holds it: "" or "?..." of at most ${VIEW_LIMITS.queryMax} characters.`);

const columns = z
  .record(
    z
      .string()
      .min(1, { message: "a column id must not be empty" })
      .max(COLUMN_KEY_MAX, { message: `a column id must be at most ${COLUMN_KEY_MAX} characters` })
      .refine((key) => key !== "__proto__", { message: "is not a column id" }),
    z.boolean({ message: "must be true or false" }),
  )
  .refine((map) => Object.keys(map).length <= VIEW_LIMITS.columnsMax, { message: `must hold at most ${VIEW_LIMITS.columnsMax} columns` })
  .nullish()
  .describe(`The grid's columns, shown (true) or hidden (false), at most ${VIEW_LIMITS.columnsMax}; null or omitted when the view keeps the page's own.`);

export const createViewSchema = z.strictObject({ name, page, query, columns }).meta({ id: "SavedViewCreate", title: "Saved view to create" });

export const updateViewSchema = z
  .strictObject({
    name: name.optional(),
    is_default: z.boolean({ message: "must be true or false" }).optional().describe("true makes this the page's default view (the user's other default of the page is unmarked); false unmarks it."),
  })
  // Only for a body otherwise valid: an unknown field is the one thing to name then.
  .refine((body) => body.name !== undefined || body.is_default !== undefined, { message: "give name, is_default or both", when: (payload) => payload.issues.length === 0 })
  .meta({ id: "SavedViewUpdate", title: "Saved view change" });

export interface CreateViewRequest {
  name: string;
  page: ViewPage;
  query: string;
  columns: Record<string, boolean> | null;
}

export interface UpdateViewRequest {
  name?: string;
  is_default?: boolean;
}

/** A saved view as the API answers it. */
export interface SavedView {
  id: number;
  name: string;
  page: ViewPage;
  query: string;
  columns: Record<string, boolean> | null;
  is_default: boolean;
  /** ISO 8601 */
  created_at: string;
  /** ISO 8601 */
  updated_at: string;
}

/** The key a name is unique by, per user: trimmed and lower-cased. */
export const viewNameKey = (viewName: string): string => viewName.trim().toLowerCase();

type Parsed<T> = { ok: true; request: T } | { ok: false; errors: FieldError[] };

export function parseCreateView(body: unknown): Parsed<CreateViewRequest> {
  const parsed = createViewSchema.safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const { name: viewName, page: viewPage, query: viewQuery, columns: viewColumns } = parsed.data;
  return { ok: true, request: { name: viewName, page: viewPage, query: viewQuery, columns: viewColumns ?? null } };
}

export function parseUpdateView(body: unknown): Parsed<UpdateViewRequest> {
  const parsed = updateViewSchema.safeParse(body);
  if (!parsed.success) return { ok: false, errors: toFieldErrors(parsed.error) };
  const { name: viewName, is_default } = parsed.data;
  return { ok: true, request: { ...(viewName !== undefined ? { name: viewName } : {}), ...(is_default !== undefined ? { is_default } : {}) } };
}

/** The delete takes no fields: an empty body or {}. */
export const deleteViewSchema = z.strictObject({});

export function parseDeleteView(body: unknown): Parsed<Record<string, never>> {
  const parsed = deleteViewSchema.safeParse(body);
  return parsed.success ? { ok: true, request: {} } : { ok: false, errors: toFieldErrors(parsed.error) };
}
