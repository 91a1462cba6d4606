/**
 * The flags of `npm run bench`, validated up front: a bad flag stops the run with one line
 * before anything is generated.
 */

export type Backend = "sqlite" | "postgres";

export interface BenchOptions {
  chargebacks: number;
  cases: number;
  shops: number;
  merchants: number;
  parents: number;
  days: number;
  seed: number;
  backends: Backend[];
  /** measured seconds per class */
  seconds: number;
  /** unmeasured seconds before each class */
  warmup: number;
  concurrency: number;
  smoke: boolean;
  out: string;
  /** chargebacks of the single large file imported into a fresh database; 0 skips it */
  single: number;
  /** records of the file imported while reads run */
  liveImport: number;
  /** sequential requests for "single request alone" and runs of each SQL floor */
  alone: number;
  /** the last file date of the history, fixed so that runs are comparable */
  end: string;
  /** --replica: a private primary with a hot standby (scripts/bench/replica.ts) instead of the backends' runs */
  replica: boolean;
}

export const USAGE =
  "usage: npm run bench -- [--chargebacks 1000000] [--cases 200000] [--shops 200] [--merchants 50] [--parents 10] [--days 730] [--seed 7] " +
  "[--single <chargebacks, 0 skips>] [--backend sqlite|postgres|both] [--replica] [--seconds 10] [--concurrency 16] [--smoke] [--out bench/results]";

export class UsageError extends Error {}

const NUMBERS = ["chargebacks", "cases", "shops", "merchants", "parents", "days", "seed", "seconds", "concurrency", "single"] as const;
const VALUES = new Set<string>([...NUMBERS, "backend", "out"]);
const SWITCHES = new Set(["smoke", "replica", "help"]);

/** Parses argv (without node and the script); `env` decides the default backends. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions | "help" {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m || !(VALUES.has(m[1]) || SWITCHES.has(m[1]))) throw new UsageError(`unknown argument ${JSON.stringify(arg)} (see --help)`);
    const name = m[1];
    if (given.has(name)) throw new UsageError(`--${name} is given twice`);
    if (SWITCHES.has(name)) {
      if (m[2] !== undefined) throw new UsageError(`--${name} takes no value`);
      given.set(name, "");
    } else if (m[2] !== undefined) {
      given.set(name, m[2]);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`--${name} needs a value`);
      given.set(name, value);
      i++;
    }
  }
  if (given.has("help")) return "help";
  const smoke = given.has("smoke");
  const replica = given.has("replica");

  const whole = (name: (typeof NUMBERS)[number], fallback: number, min: number, max: number): number => {
    const raw = given.get(name);
    if (raw === undefined) return fallback;
    if (!/^\d{1,10}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
    }
    return Number(raw);
  };

  const chargebacks = whole("chargebacks", smoke ? 4000 : 1_000_000, 1, 100_000_000);
  const cases = whole("cases", smoke ? 800 : 200_000, 1, 100_000_000);
  const shops = whole("shops", 200, 5, 100_000);
  const merchants = whole("merchants", Math.min(50, shops), 1, shops);
  const parents = whole("parents", Math.min(10, merchants), 1, merchants);
  const days = whole("days", smoke ? 60 : 730, 1, 36_500);
  const seed = whole("seed", 7, 0, 4_294_967_295);
  const concurrency = whole("concurrency", 16, 2, 1024);
  if (replica && given.has("single")) throw new UsageError("--single has no use with --replica (it imports no single file)");
  const single = replica ? 0 : whole("single", chargebacks, 0, 100_000_000);

  let seconds = smoke ? 0.3 : 10;
  const rawSeconds = given.get("seconds");
  if (rawSeconds !== undefined) {
    seconds = Number(rawSeconds);
    if (!/^\d+(\.\d+)?$/.test(rawSeconds) || !(seconds > 0) || seconds > 3600) {
      throw new UsageError(`--seconds must be a number greater than 0 and at most 3600, not ${JSON.stringify(rawSeconds)}`);
    }
  }

  const postgresUrl = env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL;
  const rawBackend = given.get("backend");
  let backends: Backend[];
  if (replica) {
    // Its own private clusters (scripts/pg-cluster.ts): no database URL needed.
    if (rawBackend !== undefined && rawBackend !== "postgres") {
      throw new UsageError(`--replica is PostgreSQL only (streaming replicas): leave out --backend or give --backend postgres, not ${JSON.stringify(rawBackend)}`);
    }
    backends = ["postgres"];
  } else if (rawBackend === undefined) backends = postgresUrl ? ["sqlite", "postgres"] : ["sqlite"];
  else if (rawBackend === "sqlite" || rawBackend === "postgres") backends = [rawBackend];
  else if (rawBackend === "both") backends = ["sqlite", "postgres"];
  else throw new UsageError(`--backend must be sqlite, postgres or both, not ${JSON.stringify(rawBackend)}`);
  if (!replica && backends.includes("postgres") && !postgresUrl) {
    throw new UsageError("--backend postgres needs BENCH_DATABASE_URL (an empty database) or TEST_DATABASE_URL (a server where a scratch database may be created)");
  }

  const out = given.get("out") ?? "bench/results";
  if (out === "") throw new UsageError("--out needs a folder");

  return {
    chargebacks,
    cases,
    shops,
    merchants,
    parents,
    days,
    seed,
    backends,
    seconds,
    warmup: smoke ? 0.1 : 1,
    concurrency,
    smoke,
    out,
    single,
    liveImport: Math.min(smoke ? 2000 : 100_000, chargebacks),
    alone: smoke ? 5 : 20,
    end: "2026-10-30",
    replica,
  };
}
