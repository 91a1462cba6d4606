import { stringify } from "csv-stringify/sync";
import { readCookie } from "@/lib/auth/request-auth";
import { findSession, sessionTokenFrom } from "@/lib/auth/sessions";
import { ApiError, problemResponse } from "@/lib/api/problem";
import { errorResponse, throttledAuthentication } from "@/lib/api/search-handler";
import { getDb } from "@/lib/data/db";
import { iterateRecords } from "@/lib/data/queries";
import { currentRequest, errorFields, log } from "@/lib/log";
import { FIELDS_BY_KIND, type FieldDef, isTextKind, type RecordKind } from "@/lib/domain/fields";
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

const KINDS: Record<string, RecordKind> = { chargeback: "chargeback", pre_arbitration: "pre_arbitration" };
const BATCH = 1000;

/**
 * A text cell that a spreadsheet could run as a formula (a leading =, +, -, @, tab or CR) gets a
 * leading quote. Every text value comes from an acquirer's file, so every text field is guarded
 * (by its kind, lib/domain/fields.ts), and the shop code too; numbers and dates never are, so a
 * negative amount stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function guardedText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function cell(def: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (def.kind === "amount") return formatMinor(value as number | string | bigint);
  const text = String(value);
  return isTextKind(def.kind) ? guardedText(text) : text;
}

function csvLines(fields: readonly FieldDef[], rows: Record<string, unknown>[]): string {
  return stringify(
    rows.map((row) => [guardedText(String(row.shop_code ?? "")), ...fields.map((def) => cell(def, row[def.name]))]),
    { record_delimiter: "\r\n" },
  );
}

export async function GET(request: Request, { params }: { params: Promise<{ kind: string }> }): Promise<Response> {
  try {
    // Own keys only: "__proto__" or "constructor" must not pass for a kind.
    const name = (await params).kind;
    const kind = Object.hasOwn(KINDS, name) ? KINDS[name] : undefined;
    if (!kind) throw new ApiError(400, "export kind must be chargeback or pre_arbitration");
    // A download started from another site's page is refused: exports are for our own pages.
    if (request.headers.get("sec-fetch-site") === "cross-site") throw new ApiError(403, "exports start from the dashboard's own pages");
    const token = sessionTokenFrom((name) => readCookie(request.headers.get("cookie"), name));
    const { db } = await getDb();
    const session = await throttledAuthentication(request, async () => {
      const found = token ? await findSession(db, token) : null;
      if (!found) throw new ApiError(401, "sign in to export records");
      return { ...found, credential: `user:${found.userId}` };
    });

    const parsed = parseExportQuery(kind, new URL(request.url).searchParams);
    if (!parsed.ok) throw new ApiError(400, "the export parameters are not valid", { errors: parsed.errors });
    // page and per_page are never set by an export query; the iterator ignores them anyway.
    const selection = parsed.request;
    const outside = (selection.shop_codes ?? []).filter((code) => !session.access.includes(code));
    if (outside.length) throw new ApiError(403, `shops outside your access list: ${outside.join(", ")}`);

    const fields = FIELDS_BY_KIND[kind];
    const batches = iterateRecords(kind, selection, session.access, BATCH);
    // The first batch is read before answering, so an unreachable database is a 503, not a broken file.
    const first = await batches.next();
    const encoder = new TextEncoder();
    // A BOM, so that spreadsheet programs read the file as UTF-8.
    const header = "\uFEFF" + stringify([["shop_code", ...fields.map((d) => d.name)]], { record_delimiter: "\r\n" });

    const requestId = currentRequest()?.requestId;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(header));
        if (!first.done) controller.enqueue(encoder.encode(csvLines(fields, first.value)));
        if (first.done) controller.close();
      },
      async pull(controller) {
        try {
          const next = await batches.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(csvLines(fields, next.value)));
        } catch (err) {
          // Headers are gone: abort the download rather than end a truncated file cleanly.
          log.error({ request_id: requestId, ...errorFields(err) }, "export failed mid-stream");
          controller.error(err);
        }
      },
      async cancel() {
        await batches.return(undefined);
      },
    });

    const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
    const filename = `${kind === "chargeback" ? "chargebacks" : "pre-arbitration"}-${stamp}.csv`;
    return new Response(stream, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${filename}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (err) {
    if (err instanceof ApiError) return problemResponse(err);
    return errorResponse(err);
  }
}
