import { z } from "zod";
import { SHOP_CODE_PATTERN } from "@/lib/auth/signature";
import {
  CARD_TYPES,
  CHARGEBACK_DECISIONS,
  DEFAULT_MAX_TEXT,
  FIELDS_BY_KIND,
  type FieldDef,
  type FieldKind,
  importColumns,
  PRE_ARBITRATION_DECISIONS,
  type RecordKind,
} from "@/lib/domain/fields";
import { parseAmount } from "@/lib/domain/money";
import { isCalendarDate } from "@/lib/schemas/search";

/**
 * Row validation of CONTRACT 6, derived from the field definitions: one zod rule per field kind.
 * Cells arrive as text; the result holds database values (amounts as bigint minor units).
 */

export interface Problem {
  line: number;
  field: string;
  message: string;
}

const DATETIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

export function isDateTime(value: string): boolean {
  const m = DATETIME.exec(value);
  return !!m && isCalendarDate(m[1]) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60;
}

const oneOf = (values: readonly string[]) =>
  z.string().refine((v) => values.includes(v), { message: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });

const RULES: Record<FieldKind, (def: FieldDef) => z.ZodType<unknown, string>> = {
  text: (def) => {
    const max = def.maxLength ?? DEFAULT_MAX_TEXT;
    return z.string().max(max, { message: `must be at most ${max} characters` });
  },
  // Reason and function codes: never negative, and small enough for any integer column.
  integer: () => z.string().regex(/^\d{1,9}$/, { message: "must be a whole number" }).transform(Number),
  amount: () =>
    z.string().transform((v, ctx) => {
      const minor = parseAmount(v);
      if (minor === null) {
        ctx.addIssue({ code: "custom", message: "must be an amount with at most two decimals, e.g. 120.50" });
        return z.NEVER;
      }
      return minor;
    }),
  date: () => z.string().refine(isCalendarDate, { message: "must be a real date YYYY-MM-DD" }),
  trDate: () => z.string().refine((v) => v === "0000-00-00" || isCalendarDate(v), { message: "must be a real date YYYY-MM-DD or 0000-00-00" }),
  datetime: () => z.string().refine(isDateTime, { message: "must be a real date and time YYYY-MM-DD HH:MM:SS" }),
  docIndicator: () => oneOf(["0", "1", " "]),
  revIndicator: () => oneOf(["R", " "]),
  currency: () => z.string().regex(/^[A-Z]{3}$/, { message: "must be a three-letter currency code such as EUR" }),
  card: () => z.string().regex(/^\d{6}%\d{4}$/, { message: "must be a masked card number 123456%1234 (a full card number is never accepted)" }),
  cardType: () => oneOf(CARD_TYPES),
  chbDecision: () => oneOf(CHARGEBACK_DECISIONS),
  preArbDecision: () => oneOf(PRE_ARBITRATION_DECISIONS),
};

const REQUIRED = "is required: the cell is empty";

function cellSchema(rule: z.ZodType<unknown, string>, required: boolean): z.ZodType {
  return required ? z.string({ error: REQUIRED }).pipe(rule) : rule.nullable();
}

// The shop code is also an API credential name and an entry of comma-separated access lists.
const shopCodeRule = z.string().regex(SHOP_CODE_PATTERN, { message: "must be 1 to 100 characters without spaces or commas" });

/** A row's values as the database columns take them. */
export type RowValues = Record<string, string | number | bigint | null>;

const INDICATORS = new Set(["doc_indicator", "rev_indicator"]);

/** Empty cells are null; cells are trimmed, except that indicators of only spaces are " ". */
export function normaliseCell(column: string, raw: string): string | null {
  const trimmed = raw.trim();
  if (trimmed !== "") return trimmed;
  return raw.length > 0 && /^ +$/.test(raw) && INDICATORS.has(column) ? " " : null;
}

export interface RowValidator {
  /** the file's columns: importColumns(kind) */
  columns: string[];
  /** `cells` are the raw cells in `columns` order */
  validate(cells: string[], line: number): { values: RowValues } | { problems: Problem[] };
}

export function rowValidator(kind: RecordKind): RowValidator {
  const defs = new Map(FIELDS_BY_KIND[kind].map((def) => [def.name, def]));
  const columns = importColumns(kind);
  const shape: Record<string, z.ZodType> = {};
  for (const column of columns) {
    const def = defs.get(column);
    shape[column] = def ? cellSchema(RULES[def.kind](def), def.required) : cellSchema(shopCodeRule, true);
  }
  const schema = z.object(shape);
  return {
    columns,
    validate(cells, line) {
      const input: Record<string, string | null> = {};
      columns.forEach((column, i) => (input[column] = normaliseCell(column, cells[i])));
      const parsed = schema.safeParse(input);
      if (parsed.success) return { values: parsed.data as RowValues };
      return { problems: parsed.error.issues.map((issue) => ({ line, field: String(issue.path[0] ?? ""), message: issue.message })) };
    },
  };
}

/**
 * Header problems: every column present, none unknown, none twice. Names are trimmed and
 * case-sensitive. Returns the position of each expected column in the file, or the problems.
 */
export function checkHeader(header: string[], columns: string[], line = 1): { positions: number[] } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const names = header.map((c) => c.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) problems.push({ line, field: name, message: "the column appears more than once" });
    else if (!columns.includes(name)) problems.push({ line, field: name || "(empty)", message: "unknown column" });
    seen.add(name);
  }
  for (const column of columns) if (!seen.has(column)) problems.push({ line, field: column, message: "the column is missing" });
  if (problems.length) return { problems };
  return { positions: columns.map((c) => names.indexOf(c)) };
}
