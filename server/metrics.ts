import crypto from "node:crypto";
import type http from "node:http";
import { problemBody } from "@/lib/api/problem";
import { errorFields, log } from "@/lib/log";
import { exposition } from "@/lib/metrics";

/**
 * GET /api/metrics (docs/api.md, "Metrics"), answered by the production server itself, not by a
 * Next route: without METRICS_TOKEN the server never comes here and Next answers the path as any
 * unknown one (404). With it, only `Authorization: Bearer <METRICS_TOKEN>` gets the exposition; a
 * missing or wrong token gets a 401 problem with `WWW-Authenticate: Bearer`.
 */

export const METRICS_PATH = "/api/metrics";

const digest = (s: string) => crypto.createHash("sha256").update(s, "utf8").digest();

/** Whether the Authorization header carries this bearer token, compared in constant time. */
export function hasBearerToken(header: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return m !== null && crypto.timingSafeEqual(digest(m[1]), digest(token));
}

function problem(res: http.ServerResponse, status: 401 | 405, detail: string, headers: Record<string, string>) {
  res.writeHead(status, { "Content-Type": "application/problem+json", "Cache-Control": "no-store", ...headers });
  res.end(JSON.stringify(problemBody(status, detail)));
}

export async function serveMetrics(req: http.IncomingMessage, res: http.ServerResponse, token: string): Promise<void> {
  // The request's body, if any, is not wanted.
  req.resume();
  if (!hasBearerToken(req.headers.authorization, token)) {
    problem(res, 401, "GET /api/metrics needs Authorization: Bearer <METRICS_TOKEN>", { "WWW-Authenticate": "Bearer" });
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    problem(res, 405, `${req.method} is not allowed here; use GET`, { Allow: "GET, HEAD" });
    return;
  }
  const { contentType, body, backlogError } = await exposition();
  if (backlogError !== undefined) log.warn(errorFields(backlogError), "metrics: the backlogs could not be read; webhook_backlog and mail_backlog are NaN");
  res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(body) });
  res.end(req.method === "HEAD" ? undefined : body);
}
