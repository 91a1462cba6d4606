import { parseAsStringLiteral } from "nuqs/server";
import { addDays } from "@/lib/domain/deadlines";
import { RECORD_KINDS, type RecordKind } from "@/lib/domain/fields";
import { LIMITS } from "@/lib/schemas/search";
import { activeFiltersOf, type FilterDef } from "./dispute-view";
import { parseAsCalendarDate, parseAsIdentifierList, parseAsIntegerIn } from "./parsers";
import { parseAsRecordKey } from "./record-key";

/**
 * The worklist's view as it lives in the URL: shops, kinds, an answer-by range, the due group the
 * user picked, page, page size and the open record (with its kind). The due groups count days
 * left in the user's own calendar, so the same link can show other rows tomorrow, as it should.
 */

export const DUE_GROUPS = [
  { key: "overdue", label: "Overdue", fromDays: null, toDays: -1 },
  { key: "soon", label: "Due in 0–2 days", fromDays: 0, toDays: 2 },
  { key: "week", label: "Due in 3–7 days", fromDays: 3, toDays: 7 },
  { key: "later", label: "Later", fromDays: 8, toDays: null },
] as const;
export type DueGroupKey = (typeof DUE_GROUPS)[number]["key"];

/** The group of an answer-by date that is `daysLeft` days away (negative: overdue). */
export function dueGroupOf(daysLeft: number): (typeof DUE_GROUPS)[number] {
  return DUE_GROUPS.find((g) => (g.fromDays === null || daysLeft >= g.fromDays) && (g.toDays === null || daysLeft <= g.toDays))!;
}

const KIND_OPTIONS = [
  { value: "chargeback", label: "Chargebacks" },
  { value: "pre_arbitration", label: "Pre-arbitration cases" },
] as const satisfies readonly { value: RecordKind; label: string }[];

export const WORKLIST_FILTERS: readonly FilterDef[] = [
  { key: "shops", field: "shop_codes", type: "shops", label: "Shops" },
  { key: "kinds", field: "kinds", type: "choice", label: "Kind", options: KIND_OPTIONS },
  { key: "from", field: "answer_by_from", type: "date", label: "Answer by, from" },
  { key: "to", field: "answer_by_to", type: "date", label: "Answer by, to" },
];

export const WORKLIST_PAGE_SIZES = [25, 50, 100, 250] as const;

export const worklistParsers = {
  shops: parseAsIdentifierList,
  kinds: parseAsIdentifierList,
  from: parseAsCalendarDate,
  to: parseAsCalendarDate,
  due: parseAsStringLiteral(DUE_GROUPS.map((g) => g.key)),
  page: parseAsIntegerIn(1, LIMITS.pageMax + 1).withDefault(1),
  size: parseAsIntegerIn(LIMITS.perPageMin, LIMITS.perPageMax).withDefault(50),
  open: parseAsRecordKey,
  openKind: parseAsStringLiteral(RECORD_KINDS),
};

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/** The answer-by range of a due group, counted from the user's `today`. */
export function dueRange(group: DueGroupKey, today: string): { from: string | null; to: string | null } {
  const g = DUE_GROUPS.find((d) => d.key === group)!;
  return { from: g.fromDays === null ? null : addDays(today, g.fromDays)!, to: g.toDays === null ? null : addDays(today, g.toDays)! };
}

/** The request body of POST /api/worklist (CONTRACT 10) for a view, the due group narrowing the range. */
export function toWorklistBody(view: Record<string, unknown>, today: string, opts: { due?: DueGroupKey | null; paging?: boolean } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { def, value } of activeFiltersOf(WORKLIST_FILTERS, view)) body[def.field] = value;
  const due = opts.due === undefined ? (view.due as DueGroupKey | null) : opts.due;
  if (due) {
    const range = dueRange(due, today);
    const from = later((body.answer_by_from as string) ?? null, range.from);
    const to = earlier((body.answer_by_to as string) ?? null, range.to);
    if (from) body.answer_by_from = from;
    if (to) body.answer_by_to = to;
  }
  if (opts.paging ?? true) {
    body.page = Math.max(0, Number(view.page ?? 1) - 1);
    body.per_page = view.size ?? 50;
  }
  return body;
}
