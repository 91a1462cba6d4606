import { replicaMaxLagSeconds, replicaUrls, authFailuresPerMinute, ConfigError, databaseTarget, flag, importGroupBytes, importInbox, logLevel, loginLimits, pgQueryTimeoutSeconds, rateLimitPerMinute, shutdownSettings, mailConfig, mailLeaseSeconds, mailRetrySeconds, metricsToken, pgPoolMax, trustProxy, webhookLeaseSeconds, webhookRetrySeconds, wholeNumber } from "@/lib/config";
import { sessionTtlMs } from "@/lib/auth/sessions";
import { sqliteReaderCount } from "@/lib/data/connection/sqlite-readers";
import { deadlineConfigFromEnv } from "@/lib/domain/deadlines";

type Env = Record<string, string | undefined>;

/**
 * Every setting the server reads, checked once before it starts (server/main.ts): a bad value
 * stops the start with one clear line instead of answering 500 to every request later.
 * Each check is the very parser the code uses at run time, so they cannot disagree.
 */
const CHECKS: ((env: Env) => unknown)[] = [
  (env) => databaseTarget(env.DATABASE_URL || undefined),
  (env) => wholeNumber("PORT", 3000, { min: 1, max: 65535 }, env),
  rateLimitPerMinute,
  authFailuresPerMinute,
  loginLimits,
  trustProxy,
  shutdownSettings,
  logLevel,
  (env) => sessionTtlMs(env.SESSION_TTL_HOURS),
  (env) => sqliteReaderCount(env.SQLITE_READERS),
  pgPoolMax,
  pgQueryTimeoutSeconds,
  replicaUrls,
  replicaMaxLagSeconds,
  (env) => flag("COOKIE_SECURE", false, env),
  (env) => {
    if (env.APP_SECRET !== undefined && env.APP_SECRET !== "" && env.APP_SECRET.length < 16) throw new ConfigError("APP_SECRET must be at least 16 characters");
  },
  (env) => {
    const origin = env.APP_ORIGIN;
    if (!origin) return;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || parsed.origin !== origin) throw new ConfigError(`APP_ORIGIN must be an origin such as https://disputes.example.com, got ${JSON.stringify(origin)}`);
  },
  deadlineConfigFromEnv,
  webhookRetrySeconds,
  webhookLeaseSeconds,
  mailRetrySeconds,
  mailLeaseSeconds,
  mailConfig,
  metricsToken,
  importInbox,
  importGroupBytes,
];

/** The problems of this environment's settings, one message each; empty when all is well. */
export function configurationProblems(env: Env = process.env): string[] {
  const problems: string[] = [];
  for (const check of CHECKS) {
    try {
      check(env);
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  return problems;
}
