import { csvResponse, exportSession } from "@/lib/api/csv-export";
import { ApiError, requireInScope } from "@/lib/api/problem";
import { errorResponse } from "@/lib/api/route";
import { exportBatchSize } from "@/lib/config";
import { type WorklistItem, worklistBatches } from "@/lib/data/queries/worklist";
import { utcToday } from "@/lib/domain/calendar";
import { guardedText } from "@/lib/domain/csv";
import { deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { formatMinor } from "@/lib/domain/money";
import { parseWorklistRequest } from "@/lib/schemas/worklist";
import { parseStrictQuery, renameFields } from "@/lib/url-state/export-query";
import { toWorklistBody, WORKLIST_FILTERS, worklistExportParsers } from "@/lib/url-state/worklist";

/**
 * GET /api/export/worklist?<the worklist's filters: shops, kinds, statuses, from, to (answer-by
 * dates), expiry_from, expiry_to, as_of (the user's date)>
 *
 * The whole worklist of a view as CSV, in its order (answer-by date, chargebacks first, then
 * import order), one row per dispute with its current item, its status on as_of and its expiry
 * date. Signed-in users only, inside their access list, like the grids' exports. Read in batches
 * from one snapshot (worklistBatches), so an import that commits during a long download neither
 * repeats nor drops a dispute (docs/api.md, "CSV export").
 */

export const dynamic = "force-dynamic";

const HEADER = ["answer_by", "status", "expires_on", "kind", "shop_code", "acq_ref_nr", "merchant_id", "merchant_name", "card", "stage", "function_code", "reason_code", "base_date", "amount", "currency", "payment_id", "payment_order_nr"];
function line(item: WorklistItem): string[] {
  const r = item.record;
  const text = (v: unknown) => (v === null || v === undefined ? "" : guardedText(String(v)));
  const chargeback = item.kind === "chargeback";
  return [
    item.answerBy,
    item.status,
    item.expiresOn,
    item.kind,
    text(r.shop_code),
    text(r.acq_ref_nr),
    text(r.merchant_id),
    text(r.merchant_name),
    text(r.card),
    chargeback ? (r.rev_indicator === "R" ? "reversal" : "chargeback") : text(r.case_stage),
    chargeback ? String(r.function_code ?? "") : "",
    chargeback ? String(r.reason_code ?? "") : "",
    String((chargeback ? r.chb_proc_date : r.case_date) ?? ""),
    formatMinor((chargeback ? r.chb_amount : r.amount) as number),
    text(chargeback ? r.chb_ccy : r.ccy),
    text(r.payment_id),
    text(r.payment_order_nr),
  ];
}

async function* lines(batches: AsyncGenerator<WorklistItem[]>): AsyncGenerator<string[][]> {
  for await (const items of batches) yield items.map(line);
}

export async function GET(request: Request): Promise<Response> {
  try {
    const session = await exportSession(request);
    const strict = parseStrictQuery(worklistExportParsers, new URL(request.url).searchParams);
    if (!strict.ok) throw new ApiError(400, "the export parameters are not valid", { errors: strict.errors });
    const { as_of: asOf, ...view } = strict.view;
    // Without the user's date, the server's in UTC (as for the API).
    const parsed = parseWorklistRequest(toWorklistBody(view, (asOf as string | undefined) ?? utcToday(), { group: null, paging: false }));
    if (!parsed.ok) throw new ApiError(400, "the export parameters are not valid", { errors: renameFields(parsed.errors, WORKLIST_FILTERS) });
    requireInScope(parsed.request.shop_codes, session.access);
    return await csvResponse("worklist", HEADER, lines(worklistBatches(parsed.request, session.access, deadlineConfigFromEnv(), exportBatchSize())));
  } catch (err) {
    return errorResponse(err);
  }
}
