/**
 * The production server (`npm start`): Next's request handler inside a plain Node HTTP server,
 * so that every request gets what `next start` cannot give it:
 *
 * - a request id (X-Request-Id answer header, request context, problem bodies, the access line);
 * - the client's real address, from the socket, or from X-Forwarded-For only when TRUST_PROXY says
 *   a proxy in front of us sets it (a client-sent header is otherwise dropped, never believed);
 * - browser safety headers and a per-request Content-Security-Policy nonce (security-headers.ts);
 * - one JSON access line when the answer is done (method, path, status, duration, principal), and
 *   the request counted and timed by its route pattern for the metrics;
 * - GET /api/metrics, the Prometheus exposition, when METRICS_TOKEN is set (metrics.ts);
 * - a graceful shutdown on SIGTERM/SIGINT (shutdown below), webhook deliveries and an inbox import
 *   in flight included;
 * - configuration checked before anything starts, failing with one clear line.
 *
 * Built into .worker/server.cjs by scripts/build-worker.mjs (run by `next build`).
 */
import crypto from "node:crypto";
import http from "node:http";
import path from "node:path";
import next from "next";
import { metricsToken, shutdownSettings, trustProxy, wholeNumber } from "@/lib/config";
import { configurationProblems } from "@/lib/config-check";
import { errorFields, log, requestContexts, type RequestContext } from "@/lib/log";
import { observeRequest, startMetrics } from "@/lib/metrics";
import { stopJobs } from "@/lib/background/runner";
import { markProductionServer, setDraining } from "@/lib/server-state";
import { METRICS_PATH, serveMetrics } from "./metrics";
import { builtRoutePatterns, routeMatcher } from "./routes";
import { applySecurityHeaders } from "./security-headers";

const ROOT = path.resolve(__dirname, "..");

/** Headers only this server may set: whatever a client sends under these names is removed. */
const INTERNAL_HEADER_PREFIX = "x-dr-";
export const CLIENT_ADDRESS_HEADER = "x-dr-client-address";
export const HTTPS_HEADER = "x-dr-https";
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

function args(argv: string[]): { port?: string; hostname?: string } {
  const out: { port?: string; hostname?: string } = {};
  for (let i = 0; i < argv.length; i++) {
    if ((argv[i] === "-p" || argv[i] === "--port") && argv[i + 1]) out.port = argv[++i];
    else if ((argv[i] === "-H" || argv[i] === "--hostname") && argv[i + 1]) out.hostname = argv[++i];
  }
  return out;
}

function clientAddress(req: http.IncomingMessage, behindProxy: boolean): string {
  const socketAddress = (req.socket.remoteAddress ?? "unknown").replace(/^::ffff:/, "");
  if (!behindProxy) return socketAddress;
  // The proxy appends the address it saw; anything before it was sent by the client.
  const forwarded = String(req.headers["x-forwarded-for"] ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return forwarded.at(-1) ?? socketAddress;
}

function isHttps(req: http.IncomingMessage, behindProxy: boolean): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  if (!behindProxy) return false;
  return String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim() === "https";
}

async function main() {
  const cli = args(process.argv.slice(2));
  const env = { ...process.env, ...(cli.port ? { PORT: cli.port } : {}) };
  const problems = configurationProblems(env);
  if (problems.length > 0) {
    // One line, on stderr, and no start: a bad value must not become a 500 on every request.
    process.stderr.write(`configuration error: ${problems.join("; ")}\n`);
    process.exit(1);
  }
  const port = wholeNumber("PORT", 3000, { min: 1, max: 65535 }, env);
  // Every interface unless -H (or HOST) names one, as `next start` does.
  const hostname = cli.hostname ?? (process.env.HOST || undefined);
  const behindProxy = trustProxy();
  const shutdown = shutdownSettings();
  const scrapeToken = metricsToken();

  // Before Next prepares: instrumentation.ts hands the metrics their backlog reader.
  startMetrics();
  // Without METRICS_TOKEN /api/metrics is no route: Next answers it as any unknown path.
  const routeOf = routeMatcher([...builtRoutePatterns(ROOT), ...(scrapeToken ? [METRICS_PATH] : [])]);

  // instrumentation.ts starts the background jobs in this server only.
  markProductionServer();
  const app = next({ dev: false, dir: ROOT, hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();

  let inFlight = 0;
  let draining = false;
  const idle = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const started = process.hrtime.bigint();
    for (const name of Object.keys(req.headers)) if (name.startsWith(INTERNAL_HEADER_PREFIX)) delete req.headers[name];
    const offered = req.headers["x-request-id"];
    const requestId = behindProxy && typeof offered === "string" && REQUEST_ID.test(offered) ? offered : crypto.randomUUID();
    const context: RequestContext = { requestId, clientAddress: clientAddress(req, behindProxy), https: isHttps(req, behindProxy) };
    req.headers["x-request-id"] = requestId;
    req.headers[CLIENT_ADDRESS_HEADER] = context.clientAddress;
    req.headers[HTTPS_HEADER] = context.https ? "1" : "0";
    res.setHeader("X-Request-Id", requestId);
    applySecurityHeaders(req, res, context.https);
    if (draining) res.setHeader("Connection", "close");

    inFlight++;
    res.once("close", () => {
      inFlight--;
      const path = (req.url ?? "").split("?")[0];
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      observeRequest(routeOf(path), (req.method ?? "GET").toUpperCase(), res.statusCode, seconds);
      log.info(
        {
          request_id: requestId,
          method: req.method,
          path,
          status: res.statusCode,
          duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          principal: context.principal,
          client: context.clientAddress,
          // An answer cut off before its end (a client gone, or the shutdown timeout).
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        "request",
      );
      if (inFlight === 0) for (const resolve of idle) resolve();
    });
    requestContexts.run(context, () => {
      if (scrapeToken && (req.url ?? "").split("?")[0] === METRICS_PATH) {
        serveMetrics(req, res, scrapeToken).catch((err: unknown) => {
          log.error({ request_id: requestId, ...errorFields(err) }, "the metrics could not be served");
          if (!res.headersSent) res.writeHead(500).end();
          else res.destroy();
        });
        return;
      }
      handle(req, res).catch((err: unknown) => {
        log.error({ request_id: requestId, ...errorFields(err) }, "request failed in the framework");
        if (!res.headersSent) {
          res.statusCode = 500;
          res.setHeader("Content-Type", "application/problem+json");
          res.end(JSON.stringify({ type: "/docs#error-500", title: "Internal server error", status: 500, detail: "an unexpected error occurred", request_id: requestId }));
        } else {
          res.destroy();
        }
      });
    });
  });
  // Next's own defaults for a production server.
  server.keepAliveTimeout = 5_000;

  async function stop(signal: string) {
    if (draining) return;
    draining = true;
    setDraining();
    log.info({ signal, in_flight: inFlight, delay_ms: shutdown.delayMs }, "shutting down: readiness now answers 503");
    // The background jobs (lib/background/runner.ts) start nothing new: webhook and mail attempts
    // in flight and a file the inbox has in hand may finish within the timeout, then are cut short.
    const jobsStopped = stopJobs(shutdown.delayMs + shutdown.timeoutMs);
    // Load balancers that poll readiness stop sending new work during the delay.
    if (shutdown.delayMs > 0) await new Promise((r) => setTimeout(r, shutdown.delayMs));
    server.close();
    server.closeIdleConnections();
    const finished = inFlight === 0 ? Promise.resolve(true) : new Promise<boolean>((resolve) => idle.add(() => resolve(true)));
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), shutdown.timeoutMs).unref());
    const clean = await Promise.race([finished, timedOut]);
    if (!clean) {
      log.warn({ in_flight: inFlight, timeout_ms: shutdown.timeoutMs }, "shutdown timeout: cutting off the requests still running");
      server.closeAllConnections();
    }
    await jobsStopped;
    await closeResources();
    log.info({ clean }, "stopped");
    process.exit(0);
  }

  async function closeResources() {
    // The database pools and reader threads (lib/data/connection/db.ts keeps them on globalThis).
    const shared = globalThis as unknown as { __disputesDb?: Promise<{ close(): Promise<void> }> };
    try {
      const db = await shared.__disputesDb?.catch(() => undefined);
      await db?.close();
    } catch (err) {
      log.warn(errorFields(err), "closing the database failed");
    }
    await (app as unknown as { close?: () => Promise<void> }).close?.().catch(() => {});
  }

  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));

  server.listen(port, hostname, () => {
    log.info({ port, hostname, trust_proxy: behindProxy }, `ready on http://${hostname ?? "localhost"}:${port}`);
  });
}

main().catch((err: unknown) => {
  log.fatal(errorFields(err), "the server could not start");
  process.exit(1);
});
