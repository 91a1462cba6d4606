import { createParser, parseAsStringLiteral } from "nuqs/server";
import { addDays } from "@/lib/domain/calendar";
import { ANSWERABLE_STATUSES, DISPUTE_STATUSES, type DisputeStatus } from "@/lib/domain/deadlines";
import { KINDS, RECORD_KINDS } from "@/lib/domain/kinds";
import { LIMITS } from "@/lib/schemas/search";
import { activeFiltersOf, type FilterDef } from "./dispute-view";
import { parseAsCalendarDate, parseAsIdentifierList, parseAsIntegerIn } from "./parsers";
import { parseAsRecordKey } from "./record-key";

/**
 * The worklist's view as it lives in the URL: shops, kinds, statuses, answer-by and expiry
 * ranges, the group the user picked (a due tile, or what expired recently), page, page size and
 * the open record (with its kind). Groups count days in the user's own calendar, so the same link
 * can show other rows tomorrow, as it should. A group fixes the statuses it lists, so choosing one
 * clears the status filter and the other way round.
 */

type StatusList = readonly DisputeStatus[];

/** The tiles of what can still be answered, in the order they are shown. */
export const DUE_GROUPS = [
  { key: "overdue", label: "Overdue", note: "still answerable", statuses: ["overdue"] as StatusList, fromDays: null, toDays: null },
  { key: "soon", label: "Due in 0–2 days", note: null, statuses: ["due"] as StatusList, fromDays: 0, toDays: 2 },
  { key: "week", label: "Due in 3–7 days", note: null, statuses: ["due"] as StatusList, fromDays: 3, toDays: 7 },
  { key: "later", label: "Later", note: null, statuses: ["due"] as StatusList, fromDays: 8, toDays: null },
] as const;
export type DueGroupKey = (typeof DUE_GROUPS)[number]["key"];

/** Apart from the due groups and quieter: what was missed recently, by expiry date. */
export const RECENTLY_EXPIRED = { key: "expired", label: "Expired in the last 30 days", days: 30 } as const;
export type GroupKey = DueGroupKey | typeof RECENTLY_EXPIRED.key;
const GROUP_KEYS: readonly GroupKey[] = [...DUE_GROUPS.map((g) => g.key), RECENTLY_EXPIRED.key];

export const groupLabel = (key: GroupKey) => (key === RECENTLY_EXPIRED.key ? RECENTLY_EXPIRED.label : DUE_GROUPS.find((g) => g.key === key)!.label);

/** What a row's status column says: its due group while due, else its status. */
export function itemGroupLabel(status: DisputeStatus, daysLeft: number): { key: DueGroupKey | "expired"; label: string } {
  if (status === "expired") return { key: "expired", label: "Expired" };
  if (status === "overdue") return { key: "overdue", label: "Overdue" };
  const group = DUE_GROUPS.find((g) => g.fromDays !== null && daysLeft >= g.fromDays && (g.toDays === null || daysLeft <= g.toDays)) ?? DUE_GROUPS[1];
  return { key: group.key, label: group.label };
}

const KIND_OPTIONS = RECORD_KINDS.map((kind) => ({ value: kind, label: KINDS[kind].title }));

const STATUS_OPTIONS = [
  { value: "due", label: "Due" },
  { value: "overdue", label: "Overdue" },
  { value: "expired", label: "Expired" },
] as const satisfies readonly { value: DisputeStatus; label: string }[];

export const WORKLIST_FILTERS: readonly FilterDef[] = [
  { key: "shops", field: "shop_codes", type: "shops", label: "Shops" },
  { key: "kinds", field: "kinds", type: "choice", label: "Kind", options: KIND_OPTIONS },
  { key: "statuses", field: "statuses", type: "choice", label: "Status", options: STATUS_OPTIONS, defaults: ANSWERABLE_STATUSES, hint: "Due and overdue unless chosen: expired disputes can no longer be answered." },
  { key: "from", field: "answer_by_from", type: "date", label: "Answer by, from" },
  { key: "to", field: "answer_by_to", type: "date", label: "Answer by, to" },
  { key: "expiry_from", field: "expiry_from", type: "date", label: "Expiry date from" },
  { key: "expiry_to", field: "expiry_to", type: "date", label: "Expiry date to" },
];

export const WORKLIST_PAGE_SIZES = [25, 50, 100, 250] as const;

/** A list of statuses in the URL: known values only, or the whole list is dropped. */
const parseAsStatusList = createParser<DisputeStatus[]>({
  parse: (value: string) => {
    const items = value.split(",");
    return items.every((item) => (DISPUTE_STATUSES as readonly string[]).includes(item)) ? [...new Set(items as DisputeStatus[])] : null;
  },
  serialize: (items: DisputeStatus[]) => items.join(","),
  eq: (a: DisputeStatus[], b: DisputeStatus[]) => a.length === b.length && a.every((v, i) => v === b[i]),
});

export const worklistParsers = {
  shops: parseAsIdentifierList,
  kinds: parseAsIdentifierList,
  statuses: parseAsStatusList,
  from: parseAsCalendarDate,
  to: parseAsCalendarDate,
  expiry_from: parseAsCalendarDate,
  expiry_to: parseAsCalendarDate,
  due: parseAsStringLiteral(GROUP_KEYS),
  page: parseAsIntegerIn(1, LIMITS.pageMax + 1).withDefault(1),
  size: parseAsIntegerIn(LIMITS.perPageMin, LIMITS.perPageMax).withDefault(50),
  open: parseAsRecordKey,
  openKind: parseAsStringLiteral(RECORD_KINDS),
};

/** The export's parameters: the view's filters with any group applied, and the user's date. */
export const worklistExportParsers = {
  shops: worklistParsers.shops,
  kinds: worklistParsers.kinds,
  statuses: worklistParsers.statuses,
  from: worklistParsers.from,
  to: worklistParsers.to,
  expiry_from: worklistParsers.expiry_from,
  expiry_to: worklistParsers.expiry_to,
  as_of: parseAsCalendarDate,
};

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/** A group's statuses and date ranges, counted from the user's `today`. */
export function groupSelection(group: GroupKey, today: string): { statuses: StatusList; answerBy: [string | null, string | null]; expiry: [string | null, string | null] } {
  if (group === RECENTLY_EXPIRED.key) return { statuses: ["expired"], answerBy: [null, null], expiry: [addDays(today, -RECENTLY_EXPIRED.days)!, addDays(today, -1)!] };
  const g = DUE_GROUPS.find((d) => d.key === group)!;
  const day = (n: number | null) => (n === null ? null : addDays(today, n)!);
  return { statuses: g.statuses, answerBy: [day(g.fromDays), day(g.toDays)], expiry: [null, null] };
}

/**
 * The request body of POST /api/worklist (docs/api.md, "Worklist") for a view on the user's
 * `today`: a group replaces the statuses and narrows the date ranges. The user's date goes along
 * as `as_of`, so statuses count in their calendar, not the server's.
 */
export function toWorklistBody(view: Record<string, unknown>, today: string, opts: { group?: GroupKey | null; paging?: boolean } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { def, value } of activeFiltersOf(WORKLIST_FILTERS, view)) body[def.field] = value;
  const group = opts.group === undefined ? (view.due as GroupKey | null) : opts.group;
  if (group) {
    const g = groupSelection(group, today);
    body.statuses = [...g.statuses];
    const narrow = (fromField: string, toField: string, [from, to]: [string | null, string | null]) => {
      const lo = later((body[fromField] as string) ?? null, from);
      const hi = earlier((body[toField] as string) ?? null, to);
      if (lo) body[fromField] = lo;
      if (hi) body[toField] = hi;
    };
    narrow("answer_by_from", "answer_by_to", g.answerBy);
    narrow("expiry_from", "expiry_to", g.expiry);
  }
  body.as_of = today;
  if (opts.paging ?? true) {
    body.page = Math.max(0, Number(view.page ?? 1) - 1);
    body.per_page = view.size ?? 50;
  }
  return body;
}

/** The export link's parameters for a request body made by toWorklistBody. */
export function exportParamsOf(body: Record<string, unknown>): Record<keyof typeof worklistExportParsers, unknown> {
  return {
    shops: body.shop_codes ?? null,
    kinds: body.kinds ?? null,
    statuses: body.statuses ?? null,
    from: body.answer_by_from ?? null,
    to: body.answer_by_to ?? null,
    expiry_from: body.expiry_from ?? null,
    expiry_to: body.expiry_to ?? null,
    as_of: body.as_of ?? null,
  };
}
