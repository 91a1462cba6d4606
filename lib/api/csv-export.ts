import "server-only";
import { readCookie } from "@/lib/auth/request-auth";
import { findSession, sessionTokenFrom } from "@/lib/auth/sessions";
import { getDb } from "@/lib/data/connection/db";
import { csvLines } from "@/lib/domain/csv";
import { currentRequest, errorFields, log } from "@/lib/log";
import { ApiError } from "./problem";
import { throttledAuthentication } from "./route";

/**
 * What every CSV export of the dashboard shares: a signed-in user of this site (session cookie,
 * never from another site's page, behind the failed-authentication throttle), formula-safe text
 * cells and one quoting rule (lib/domain/csv.ts), and a stream that reads its first batch before
 * answering (an unreachable database is a 503, not a broken file) and aborts rather than ends a
 * file cut short.
 */

/** The signed-in user of an export request, or a 401 / 403 ApiError. */
export async function exportSession(request: Request) {
  // A download started from another site's page is refused: exports are for our own pages.
  if (request.headers.get("sec-fetch-site") === "cross-site") throw new ApiError(403, "exports start from the dashboard's own pages");
  const token = sessionTokenFrom((name) => readCookie(request.headers.get("cookie"), name));
  const { db } = await getDb();
  return throttledAuthentication(request, async () => {
    const found = token ? await findSession(db, token) : null;
    if (!found) throw new ApiError(401, "sign in to export records");
    return { ...found, credential: `user:${found.userId}` };
  });
}

/** The CSV answer: a BOM and the header, then each batch's lines as the batches come. */
export async function csvResponse(name: string, header: string[], batches: AsyncGenerator<string[][]>): Promise<Response> {
  const first = await batches.next();
  const encoder = new TextEncoder();
  const requestId = currentRequest()?.requestId;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      // A BOM, so that spreadsheet programs read the file as UTF-8.
      controller.enqueue(encoder.encode("\uFEFF" + csvLines([header])));
      if (first.done) controller.close();
      else controller.enqueue(encoder.encode(csvLines(first.value)));
    },
    async pull(controller) {
      try {
        const next = await batches.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(csvLines(next.value)));
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
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}-${stamp}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
