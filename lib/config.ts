import path from "node:path";

/** Runtime configuration, read from the environment (CONTRACT 8). */
export type DatabaseTarget =
  | { kind: "sqlite"; file: string }
  | { kind: "postgres"; url: string };

export const DEFAULT_DATABASE_URL = "file:./data/disputes.sqlite";

export function databaseTarget(url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL): DatabaseTarget {
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) return { kind: "postgres", url };
  if (url.startsWith("file:")) {
    const file = url.slice("file:".length);
    if (!file) throw new ConfigError("DATABASE_URL file: needs a path, e.g. file:./data/disputes.sqlite");
    return { kind: "sqlite", file: file === ":memory:" ? file : path.resolve(file) };
  }
  throw new ConfigError("DATABASE_URL must be file:<path> or postgres://...");
}

export function rateLimitPerMinute(): number {
  const raw = process.env.RATE_LIMIT_PER_MINUTE;
  if (raw === undefined || raw === "") return 6000;
  if (!/^\d+$/.test(raw)) throw new ConfigError("RATE_LIMIT_PER_MINUTE must be a whole number (0 turns the limit off)");
  return Number(raw);
}

export class ConfigError extends Error {
  override name = "ConfigError";
}
