import fs from "node:fs";
import path from "node:path";

/** Runtime configuration, read from the environment (docs/api.md, "Configuration"). */
export type DatabaseTarget =
  | { kind: "sqlite"; file: string }
  | { kind: "postgres"; url: string };

export const DEFAULT_DATABASE_URL = "file:./data/disputes.sqlite";

type Env = Record<string, string | undefined>;

export function databaseTarget(url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL): DatabaseTarget {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { kind: "postgres", url };
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length);
    if (!file) throw new ConfigError("DATABASE_URL file: needs a path, e.g. file:./data/disputes.sqlite");
    return { kind: "sqlite", file: file === ":memory:" ? file : path.resolve(file) };
  }
  throw new ConfigError("DATABASE_URL must be file:<path> or postgres://...");
}

/** A whole number from the environment within [min, max], or the default when unset. */
export function wholeNumber(name: string, fallback: number, { min = 0, max = 1_000_000_000, hint = "" } = {}, env: Env = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}${hint ? ` (${hint})` : ""}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** true/false (also 1/0, yes/no) from the environment, or the default when unset. */
export function flag(name: string, fallback: boolean, env: Env = process.env): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["true", "1", "yes"].includes(raw)) return true;
  if (["false", "0", "no"].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(env[name])}`);
}

export const rateLimitPerMinute = (env: Env = process.env) =>
  wholeNumber("RATE_LIMIT_PER_MINUTE", 6000, { hint: "0 turns the limit off" }, env);

/**
 * How long the server waits for one PostgreSQL statement: PostgreSQL cancels it then
 * (statement_timeout), and the driver gives up a second later on a server that does not answer at
 * all (a frozen host, a dead link), so no request waits longer; either way the answer is 503.
 */
export const pgQueryTimeoutSeconds = (env: Env = process.env) => wholeNumber("PG_QUERY_TIMEOUT_SECONDS", 15, { min: 1, max: 3600 }, env);

/** PostgreSQL connections of a pool (docs/api.md, "Configuration"): PG_POOL_MAX, 1 to 1000, 10 by default. */
export const pgPoolMax = (env: Env = process.env) => wholeNumber("PG_POOL_MAX", 10, { min: 1, max: 1000 }, env);

/**
 * The import's group limit (docs/api.md, "Import of acquirer files"): a file over this many bytes
 * is loaded in a transaction of its own, the files before it committed first; smaller files share
 * a transaction with the others of about a second of loading. 64 KiB to 1 GiB, 16 MiB by default.
 */
export const importGroupBytes = (env: Env = process.env) => wholeNumber("IMPORT_GROUP_BYTES", 16 * 1024 * 1024, { min: 65_536, max: 1_073_741_824 }, env);

/** Records or disputes an export reads per batch (docs/api.md, "CSV export"); smaller in tests, to cross many batches. */
export const exportBatchSize = (env: Env = process.env) => wholeNumber("EXPORT_BATCH_SIZE", 1000, { min: 10, max: 10_000 }, env);

/**
 * DATABASE_REPLICA_URLS: comma-separated postgres:// URLs of hot standbys of DATABASE_URL, whose
 * servers take the reads (docs/replicas.md); none by default. Only with a PostgreSQL DATABASE_URL.
 */
export function replicaUrls(env: Env = process.env): string[] {
  const raw = env.DATABASE_REPLICA_URLS?.trim();
  if (!raw) return [];
  const urls = raw.split(",").map((u) => u.trim());
  if (databaseTarget(env.DATABASE_URL || undefined).kind !== "postgres") throw new ConfigError("DATABASE_REPLICA_URLS needs a postgres:// DATABASE_URL: replicas are PostgreSQL streaming standbys of it");
  for (const url of urls) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // reported below
    }
    if (!parsed || !["postgres:", "postgresql:"].includes(parsed.protocol) || !parsed.hostname) {
      throw new ConfigError(`DATABASE_REPLICA_URLS must be comma-separated postgres:// URLs, got an entry ${JSON.stringify(url.replace(/\/\/[^@/]*@/, "//***@"))}`);
    }
  }
  if (new Set(urls).size !== urls.length) throw new ConfigError("DATABASE_REPLICA_URLS names the same URL twice");
  return urls;
}

/** REPLICA_MAX_LAG_SECONDS: a replica further behind than this is not read from (default 5). */
export const replicaMaxLagSeconds = (env: Env = process.env) => wholeNumber("REPLICA_MAX_LAG_SECONDS", 5, { min: 1, max: 3600 }, env);

/** Failed API authentications one client address may send per minute (per instance); 0: no limit. */
export const authFailuresPerMinute = (env: Env = process.env) =>
  wholeNumber("AUTH_FAILURES_PER_MINUTE", 60, { hint: "0 turns the limit off" }, env);

/** Sign-in throttling (docs/api.md, "Dashboard sign-in"): failures allowed per window, and the window. */
export const loginLimits = (env: Env = process.env) => ({
  perAccount: wholeNumber("LOGIN_FAILURES_PER_ACCOUNT", 5, { min: 1, max: 1000 }, env),
  perAddress: wholeNumber("LOGIN_FAILURES_PER_ADDRESS", 30, { min: 1, max: 100_000 }, env),
  windowMs: wholeNumber("LOGIN_LOCK_MINUTES", 15, { min: 1, max: 24 * 60 }, env) * 60_000,
});

/** Whether X-Forwarded-Proto and X-Forwarded-For come from a proxy we sit behind (and may be believed). */
export const trustProxy = (env: Env = process.env) => flag("TRUST_PROXY", false, env);

export const shutdownSettings = (env: Env = process.env) => ({
  /** readiness answers 503 for this long before the server stops accepting connections */
  delayMs: wholeNumber("SHUTDOWN_DELAY_SECONDS", 0, { max: 600 }, env) * 1000,
  /** requests still running after this long are cut off */
  timeoutMs: wholeNumber("SHUTDOWN_TIMEOUT_SECONDS", 30, { min: 1, max: 3600 }, env) * 1000,
});

export const DEFAULT_WEBHOOK_RETRY_SECONDS = [60, 300, 1800, 7200, 18000, 36000, 86400];
export const DEFAULT_MAIL_RETRY_SECONDS = [60, 300, 1800, 7200];

/**
 * Delays between attempts, from a variable of comma-separated whole seconds, each 1 to 2,592,000
 * (30 days), at most 50 of them; after the last the delivery fails.
 */
function retrySchedule(name: string, fallback: number[], env: Env): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length > 50 || !parts.every((p) => /^\d{1,7}$/.test(p) && Number(p) >= 1 && Number(p) <= 2_592_000)) {
    throw new ConfigError(`${name} must be comma-separated whole seconds from 1 to 2592000 (at most 50), e.g. "60,300,1800", got ${JSON.stringify(raw)}`);
  }
  return parts.map(Number);
}

/** The delays before the 2nd, 3rd, ... attempt of a webhook delivery (docs/api.md, "Webhooks"). */
export const webhookRetrySeconds = (env: Env = process.env) => retrySchedule("WEBHOOK_RETRY_SECONDS", DEFAULT_WEBHOOK_RETRY_SECONDS, env);

/** The delays before the 2nd, 3rd, ... attempt of a message after a temporary failure (docs/mail.md, "Delivery"). */
export const mailRetrySeconds = (env: Env = process.env) => retrySchedule("MAIL_RETRY_SECONDS", DEFAULT_MAIL_RETRY_SECONDS, env);

/**
 * How long a server holds a webhook delivery it claimed before another may take it over, as after
 * a crash (docs/api.md, "Webhooks"); an attempt's time limit is 10 s, or two thirds of the lease
 * when that is shorter, so that an attempt ends and is recorded within its lease.
 */
export const webhookLeaseSeconds = (env: Env = process.env) => wholeNumber("WEBHOOK_LEASE_SECONDS", 15, { min: 3, max: 3600 }, env);

/**
 * The same for a mail message (docs/mail.md, "Delivery"): each SMTP step (connection, greeting,
 * data) may take 30 s, or a quarter of the lease when that is shorter.
 */
export const mailLeaseSeconds = (env: Env = process.env) => wholeNumber("MAIL_LEASE_SECONDS", 120, { min: 4, max: 3600 }, env);

export interface MailConfig {
  smtpUrl: string;
  from: string;
  /** the dashboard's public origin, for links in mail */
  appUrl: string;
}

/**
 * Mail (docs/mail.md, "Configuration"): null without SMTP_URL, and then nothing is stored or sent.
 * SMTP_URL is smtp://[user:password@]host:port or smtps://...; APP_URL an http(s) origin.
 */
export function mailConfig(env: Env = process.env): MailConfig | null {
  const appUrl = appOrigin(env);
  const raw = env.SMTP_URL?.trim();
  const from = env.MAIL_FROM?.trim() || "Dispute review <no-reply@localhost>";
  if (!/^(.*<)?[^\s<>@]+@[^\s<>@]+>?$/.test(from)) throw new ConfigError(`MAIL_FROM must be an address such as "Disputes <disputes@example.com>", got ${JSON.stringify(env.MAIL_FROM)}`);
  if (!raw) return null;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname || (url.pathname !== "" && url.pathname !== "/")) {
    // Never echo the value: it may hold the SMTP password.
    throw new ConfigError("SMTP_URL must be smtp://[user:password@]host:port or smtps://[user:password@]host:port");
  }
  return { smtpUrl: raw, from, appUrl };
}

/** Whether this server sends mail at all (SMTP_URL set; its form is checked at start). */
export const mailEnabled = (env: Env = process.env) => Boolean(env.SMTP_URL?.trim());

/** APP_URL without a trailing slash; default http://localhost:<PORT>. */
export function appOrigin(env: Env = process.env): string {
  const raw = env.APP_URL?.trim();
  if (!raw) return `http://localhost:${wholeNumber("PORT", 3000, { min: 1, max: 65535 }, env)}`;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
    throw new ConfigError(`APP_URL must be the dashboard's http(s) address such as https://disputes.example.com, got ${JSON.stringify(raw)}`);
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * The bearer token a scraper sends to GET /api/metrics (docs/api.md, "Metrics"); undefined when
 * unset or empty, and then the path answers 404. At least 16 visible characters, no spaces.
 */
export function metricsToken(env: Env = process.env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === "") return undefined;
  // Never echo the value: it is a secret.
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) throw new ConfigError("METRICS_TOKEN must be at least 16 visible ASCII characters without spaces");
  return raw;
}

/**
 * The folder a running server imports arriving files from (docs/api.md, "Import inbox"), as given;
 * undefined when IMPORT_INBOX is unset or empty. A folder missing at start is not an error (the
 * server waits for it, as for one that disappears later); a path that names a file is.
 */
export function importInbox(env: Env = process.env): string | undefined {
  const raw = env.IMPORT_INBOX;
  if (raw === undefined || raw.trim() === "") return undefined;
  let isFolder = true;
  try {
    isFolder = fs.statSync(raw).isDirectory();
  } catch {
    // missing or unreadable now: watched and retried
  }
  if (!isFolder) throw new ConfigError(`IMPORT_INBOX must name a folder, but ${JSON.stringify(raw)} is a file`);
  return raw;
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function logLevel(env: Env = process.env): (typeof LOG_LEVELS)[number] {
  const raw = env.LOG_LEVEL?.trim() || "info";
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got ${JSON.stringify(raw)}`);
  return raw as (typeof LOG_LEVELS)[number];
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
