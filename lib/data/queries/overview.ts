import "server-only";
import { ECP_FLOORS, monthsOf, periods } from "@/lib/domain/periods";
import { ECP_GROUP_BY, OVERVIEW_PARTS, type OverviewPartName, type OverviewRequest } from "@/lib/schemas/overview";
import type { SummaryRequest } from "@/lib/schemas/summary";
import { getDb } from "../connection/db";
import { visibleShops } from "./selection";
import type { Row } from "../connection/read";
import { summaryQuery, summaryRowsQuery, writeSummary } from "./summary";

export type OverviewResult = { ok: true; json: string } | { ok: false; part: OverviewPartName };

/**
 * The overview (lib/schemas/overview.ts): its summaries compiled as the summary endpoints compile
 * them and read in one batch (one snapshot, one trip to a reader thread, or concurrently on the
 * PostgreSQL pool), each written as its endpoint writes it.
 */
export async function overview(request: OverviewRequest, access: readonly string[]): Promise<OverviewResult> {
  const { db, dialect, read } = await getDb();
  const { current, previous } = periods({ from: request.file_date_from, to: request.file_date_to }, request.file_date_to)!;
  const shops = visibleShops(request, access);
  const scope = request.shop_codes?.length ? { shop_codes: request.shop_codes } : {};
  const summaryOf = (period: "current" | "previous", group_by: SummaryRequest["group_by"]): SummaryRequest => {
    const p = period === "current" ? current : previous;
    return { ...scope, file_date_from: p.from, file_date_to: p.to, group_by };
  };
  const names = Object.keys(OVERVIEW_PARTS) as OverviewPartName[];
  const statements = [
    ...names.map((name) => {
      const part = OVERVIEW_PARTS[name];
      return summaryQuery(db, dialect, part.kind, summaryOf(part.period, [...part.group_by]), shops);
    }),
    summaryRowsQuery(db, dialect, "chargeback", summaryOf("current", [...ECP_GROUP_BY]), shops),
  ];
  const results = (await read(statements.map((q) => ({ sql: q.sql, parameters: q.parameters })))) as Row[][];
  const parts: string[] = [];
  for (const [i, name] of names.entries()) {
    const part = OVERVIEW_PARTS[name];
    const written = writeSummary(part.kind, part.group_by, results[i]);
    if (!written.ok) return { ok: false, part: name };
    parts.push(`${JSON.stringify(name)}:${written.json}`);
  }
  const period = (p: typeof current) => JSON.stringify({ from: p.from, to: p.to, days: p.days });
  const ecp = JSON.stringify(excessiveChargebacks(monthsOf(current), results[names.length]));
  return { ok: true, json: `{"period":${period(current)},"previous":${period(previous)},${parts.join(",")},"excessive_chargebacks":${ecp}}` };
}

/**
 * Per month, each merchant's Mastercard chargebacks (records that are not reversals, every
 * currency) against the program's floors, from rows of (month, merchant, scheme, currency) in
 * key order.
 */
function excessiveChargebacks(months: readonly string[], rows: readonly Row[]) {
  const perMonth = new Map<string, Map<string, number>>();
  for (const row of rows) {
    if (row.k2 !== "MC") continue;
    const month = String(row.k0);
    const merchants = perMonth.get(month) ?? new Map<string, number>();
    perMonth.set(month, merchants);
    const merchant = String(row.k1);
    merchants.set(merchant, (merchants.get(merchant) ?? 0) + Number(row.n) - Number(row.reversals));
  }
  return months.map((month) => {
    let top: [string, number] | null = null;
    let [merchants, atExcessive, atHigh] = [0, 0, 0];
    // Merchants in bytewise order (the rows' order), so a tie goes to the first.
    for (const [merchant, count] of perMonth.get(month) ?? []) {
      if (count <= 0) continue;
      merchants++;
      if (count >= ECP_FLOORS.excessive) atExcessive++;
      if (count >= ECP_FLOORS.highExcessive) atHigh++;
      if (!top || count > top[1]) top = [merchant, count];
    }
    return { month, merchants, top_merchant: top?.[0] ?? null, top_count: top?.[1] ?? 0, at_excessive: atExcessive, at_high_excessive: atHigh };
  });
}
