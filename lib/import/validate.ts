import { z } from "zod";
import {
  CARD_TYPES,
  CHARGEBACK_DECISIONS,
  DEFAULT_MAX_TEXT,
  FIELDS_BY_KIND,
  type FieldDef,
  type FieldKind,
  PRE_ARBITRATION_DECISIONS,
  type RecordKind,
} from "@/lib/domain/fields";
import { parseAmount } from "@/lib/domain/money";
import { isCalendarDate } from "@/lib/schemas/search";
import { SHOP_CODE_PATTERN } from "@/lib/auth/signature";

/**
 * Row validation of CONTRACT 6, derived from the field definitions: one zod rule per field kind.
 * Cells arrive as text; the result holds database values (amounts in minor units).
 */

export interface Problem {
  line: number;
  field: string;
  message: string;
}

const DATETIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

function isDateTime(value: string): boolean {
  const m = DATETIME.exec(value);
  return !!m && isCalendarDate(m[1]) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60;
}

const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });
const oneOf = (values: readonly string[]) =>
  z.string().refine((v) => values.includes(v), { message: `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}` });

const RULES: Record<FieldKind, (def: FieldDef) => z.ZodType> = {
  text: (def) => text(def.maxLength ?? DEFAULT_MAX_TEXT),
  integer: () =>
    z
      .string()
      .regex(/^-?\d{1,9}$/, { message: "must be a whole number" })
      .transform(Number),
  amount: () =>
    z.string().transform((v, ctx) => {
      const minor = parseAmount(v);
      if (minor === null) {
        ctx.addIssue({ code: "custom", message: "must be an amount with at most two decimals, e.g. 120.50" });
        return z.NEVER;
      }
      return Number(minor);
    }),
  date: () => z.string().refine(isCalendarDate, { message: "must be a real date YYYY-MM-DD" }),
  trDate: () => z.string().refine((v) => v === "0000-00-00" || isCalendarDate(v), { message: "must be a real date YYYY-MM-DD or 0000-00-00" }),
  datetime: () => z.string().refine(isDateTime, { message: "must be a date and time YYYY-MM-DD HH:MM:SS" }),
  docIndicator: () => oneOf(["0", "1", " "]),
  revIndicator: () => oneOf(["R", " "]),
  currency: () => z.string().regex(/^[A-Z]{3}$/, { message: "must be a three-letter currency code such as EUR" }),
  card: () => z.string().regex(/^\d{6}%\d{4}$/, { message: "must be a masked card number 123456%1234 (a full card number is never accepted)" }),
  cardType: () => oneOf(CARD_TYPES),
  chbDecision: () => oneOf(CHARGEBACK_DECISIONS),
  preArbDecision: () => oneOf(PRE_ARBITRATION_DECISIONS),
};

const REQUIRED = "is required: the cell is empty";

function cellSchema(def: FieldDef): z.ZodType {
  const rule = RULES[def.kind](def);
  return def.required ? z.string({ error: REQUIRED }).pipe(rule as z.ZodType<unknown, string>) : rule.nullable();
}

const shopCodeSchema = z
  .string({ error: REQUIRED })
  .regex(SHOP_CODE_PATTERN, { message: "must be 1 to 100 characters without spaces or commas" });

export type RowValues = Record<string, string | number | null>;

export interface RowValidator {
  columns: string[];
  validate(cells: Record<string, string | null>, line: number): { values: RowValues } | { problems: Problem[] };
}

/** Empty cells are null; cells are trimmed, except that indicators of only spaces are " ". */
export function normaliseCell(column: string, raw: string): string | null {
  const trimmed = raw.trim();
  if (trimmed === "") {
    if (raw.length > 0 && (column === "doc_indicator" || column === "rev_indicator")) return " ";
    return null;
  }
  return trimmed;
}

export function rowValidator(kind: RecordKind): RowValidator {
  const fileFields = FIELDS_BY_KIND[kind].filter((def) => !def.fromFileName);
  const shape: Record<string, z.ZodType> = { shop_code: shopCodeSchema };
  for (const def of fileFields) shape[def.name] = cellSchema(def);
  const schema = z.object(shape);
  const columns = ["shop_code", ...fileFields.map((def) => def.name)];
  return {
    columns,
    validate(cells, line) {
      const parsed = schema.safeParse(cells);
      if (parsed.success) return { values: parsed.data as RowValues };
      return { problems: parsed.error.issues.map((issue) => ({ line, field: String(issue.path[0] ?? ""), message: issue.message })) };
    },
  };
}

export interface FileName {
  kind: RecordKind;
  bankId: string;
  fileDate: string;
}

/** CHB_<YYYYMMDD>.csv or PREARB_<BANKID>_<YYYYMMDD>.csv; null for any other name. */
export function parseFileName(name: string): FileName | null {
  const m = /^(?:CHB|PREARB_([A-Za-z0-9]{1,20}))_(\d{4})(\d{2})(\d{2})\.csv$/.exec(name);
  if (!m) return null;
  const fileDate = `${m[2]}-${m[3]}-${m[4]}`;
  if (!isCalendarDate(fileDate)) return null;
  return name.startsWith("CHB_") ? { kind: "chargeback", bankId: "29", fileDate } : { kind: "pre_arbitration", bankId: m[1], fileDate };
}
