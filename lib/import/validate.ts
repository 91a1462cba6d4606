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
 * Row validation (docs/api.md, "Import of acquirer files"), derived from the field definitions: one rule per field kind.
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

/** A cell's problem: its message (one object per rule, so a failing cell allocates nothing). */
class Bad {
  constructor(readonly message: string) {}
}

/** A cell's check: the database value of a present, trimmed cell, or its problem. */
type Rule = (value: string) => unknown;

const oneOf = (values: readonly string[]): Rule => {
  const allowed = new Set(values);
  const bad = new Bad(`must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}`);
  return (v) => (allowed.has(v) ? v : bad);
};

const matching = (pattern: RegExp, message: string, convert: (v: string) => unknown = (v) => v): Rule => {
  const bad = new Bad(message);
  return (v) => (pattern.test(v) ? convert(v) : bad);
};

const passing = (test: (v: string) => boolean, message: string): Rule => {
  const bad = new Bad(message);
  return (v) => (test(v) ? v : bad);
};

/**
 * The rule of each field kind. Plain functions rather than a schema library: the import checks
 * every cell of a million-record file, and zod's object parse cost three times the CSV reading.
 */
const RULES: Record<FieldKind, (def: FieldDef) => Rule> = {
  text: (def) => {
    const max = def.maxLength ?? DEFAULT_MAX_TEXT;
    const bad = new Bad(`must be at most ${max} characters`);
    return (v) => (v.length <= max ? v : bad);
  },
  // Reason and function codes: never negative, and small enough for any integer column.
  integer: () => matching(/^\d{1,9}$/, "must be a whole number", Number),
  amount: () => {
    const bad = new Bad("must be an amount with at most two decimals, e.g. 120.50");
    return (v) => parseAmount(v) ?? bad;
  },
  date: () => passing(isCalendarDate, "must be a real date YYYY-MM-DD"),
  trDate: () => passing((v) => v === "0000-00-00" || isCalendarDate(v), "must be a real date YYYY-MM-DD or 0000-00-00"),
  datetime: () => passing(isDateTime, "must be a real date and time YYYY-MM-DD HH:MM:SS"),
  docIndicator: () => oneOf(["0", "1", " "]),
  revIndicator: () => oneOf(["R", " "]),
  currency: () => matching(/^[A-Z]{3}$/, "must be a three-letter currency code such as EUR"),
  card: () => matching(/^\d{6}%\d{4}$/, "must be a masked card number 123456%1234 (a full card number is never accepted)"),
  cardType: () => oneOf(CARD_TYPES),
  chbDecision: () => oneOf(CHARGEBACK_DECISIONS),
  preArbDecision: () => oneOf(PRE_ARBITRATION_DECISIONS),
};

const REQUIRED = "is required: the cell is empty";

// The shop code is also an API credential name and an entry of comma-separated access lists.
const shopCodeRule = matching(SHOP_CODE_PATTERN, "must be 1 to 100 characters without spaces or commas");

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
  const checks = columns.map((column) => {
    const def = defs.get(column);
    return def ? { column, rule: RULES[def.kind](def), required: def.required } : { column, rule: shopCodeRule, required: true };
  });
  return {
    columns,
    validate(cells, line) {
      const values: RowValues = {};
      let problems: Problem[] | undefined;
      for (let i = 0; i < checks.length; i++) {
        const { column, rule, required } = checks[i];
        const cell = normaliseCell(column, cells[i]);
        if (cell === null) {
          if (required) (problems ??= []).push({ line, field: column, message: REQUIRED });
          values[column] = null;
          continue;
        }
        const value = rule(cell);
        if (value instanceof Bad) (problems ??= []).push({ line, field: column, message: value.message });
        else values[column] = value as RowValues[string];
      }
      return problems ? { problems } : { values };
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
