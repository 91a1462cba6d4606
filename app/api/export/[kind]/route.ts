import { csvResponse, exportSession } from "@/lib/api/csv-export";
import { ApiError, requireInScope } from "@/lib/api/problem";
import { errorResponse } from "@/lib/api/route";
import { exportBatchSize } from "@/lib/config";
import { iterateRecords } from "@/lib/data/queries/search";
import { guardedText } from "@/lib/domain/csv";
import { FIELDS_BY_KIND, type FieldDef, isTextKind } from "@/lib/domain/fields";
import { KINDS, kindOf, RECORD_KINDS } from "@/lib/domain/kinds";
import { formatMinor } from "@/lib/domain/money";
import { parseExportQuery } from "@/lib/url-state/export-query";

/**
 * GET /api/export/{chargeback|pre_arbitration}?<the grid's URL filters and sort>
 *
 * The whole selection of a dashboard view as CSV, streamed batch by batch (keyset pages from the
 * data module), so a large history neither waits for the last row nor sits in memory. Signed-in
 * users only (session cookie), inside their access list; amounts are written from the integer
 * minor units in the database, exactly, never through a float.
 */

export const dynamic = "force-dynamic";

/** Text fields (by their kind, lib/domain/fields.ts) are formula-guarded; amounts exact from minor units. */
function cell(def: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (def.kind === "amount") return formatMinor(value as number | string | bigint);
  const text = String(value);
  return isTextKind(def.kind) ? guardedText(text) : text;
}

async function* lines(fields: readonly FieldDef[], batches: AsyncGenerator<Record<string, unknown>[]>): AsyncGenerator<string[][]> {
  for await (const rows of batches) yield rows.map((row) => [guardedText(String(row.shop_code ?? "")), ...fields.map((def) => cell(def, row[def.name]))]);
}

export async function GET(request: Request, { params }: { params: Promise<{ kind: string }> }): Promise<Response> {
  try {
    const kind = kindOf((await params).kind);
    if (!kind) throw new ApiError(400, `export kind must be ${RECORD_KINDS.join(", ")} or worklist`);
    const session = await exportSession(request);
    const parsed = parseExportQuery(kind, new URL(request.url).searchParams);
    if (!parsed.ok) throw new ApiError(400, "the export parameters are not valid", { errors: parsed.errors });
    // page and per_page are never set by an export query; the iterator ignores them anyway.
    const selection = parsed.request;
    requireInScope(selection.shop_codes, session.access);
    const fields = FIELDS_BY_KIND[kind];
    return await csvResponse(KINDS[kind].exportName, ["shop_code", ...fields.map((d) => d.name)], lines(fields, iterateRecords(kind, selection, session.access, exportBatchSize())));
  } catch (err) {
    return errorResponse(err);
  }
}
