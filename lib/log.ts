import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type Logger } from "pino";
import { logLevel } from "@/lib/config";

/**
 * Structured JSON logs (one object per line on stdout) and the context of the request being
 * served. The production server (server/main.ts) and the route handlers Next bundles separately
 * are different module instances, so both the logger and the request context live on globalThis:
 * there is one of each per process.
 */

export interface RequestContext {
  /** the X-Request-Id of this request, also in problem bodies and the dashboard's error state */
  requestId: string;
  /** the client's address as the server determined it (TRUST_PROXY decides whether to believe X-Forwarded-For) */
  clientAddress: string;
  /** whether the browser reached us over https (directly, or through a trusted proxy) */
  https: boolean;
  /** who is calling, once authenticated: `shop:<code>` or `user:<id>`, for the access line */
  principal?: string;
  /** the database server this request reads on, once its first read chose one (lib/data/connection/replicas.ts) */
  readServer?: string;
}

const shared = globalThis as unknown as { __drLogger?: Logger; __drRequestContext?: AsyncLocalStorage<RequestContext> };

/**
 * Never written, whatever a caller passes by mistake: credentials, signatures, cookies and
 * passwords. Card numbers are never logged at all (no record or body is ever logged).
 */
const REDACT = [
  "password",
  "*.password",
  "headers.cookie",
  "headers.authorization",
  'headers["x-signature"]',
  'headers["set-cookie"]',
  "signature",
  "token",
  "*.token",
];

const OPTIONS: pino.LoggerOptions = {
  level: safeLevel(),
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  redact: { paths: REDACT, censor: "[redacted]" },
};

export const log: Logger = (shared.__drLogger ??= pino(OPTIONS));

/**
 * The same structured lines on standard error, written synchronously: for commands whose standard
 * output is their own result (`npm run import` prints the lines of docs/api.md there), and which
 * exit as soon as they are done.
 */
export function stderrLog(): Logger {
  return pino(OPTIONS, pino.destination({ dest: 2, sync: true }));
}

function safeLevel() {
  try {
    return logLevel();
  } catch {
    return "info"; // the server refuses to start with a bad LOG_LEVEL; commands just log at info
  }
}

export const requestContexts: AsyncLocalStorage<RequestContext> = (shared.__drRequestContext ??= new AsyncLocalStorage<RequestContext>());

/** The request being served, when there is one (the production server sets it up). */
export function currentRequest(): RequestContext | undefined {
  return requestContexts.getStore();
}

/** Names the authenticated caller in the request's access line. */
export function notePrincipal(principal: string): void {
  const context = currentRequest();
  if (context) context.principal = principal;
}

/** An error's class and message for a log line; the stack too, which stays in the log. */
export function errorFields(err: unknown): { err: { type: string; message: string; code?: string; stack?: string } } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { err: { type: err.name, message: err.message, ...(typeof code === "string" ? { code } : {}), stack: err.stack } };
  }
  return { err: { type: typeof err, message: String(err) } };
}
