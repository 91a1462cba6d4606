import { describe, expect, it } from "vitest";
import { replicaMaxLagSeconds, replicaUrls } from "@/lib/config";
import { configurationProblems } from "@/lib/config-check";
import { parseLsn, replicaLagSeconds } from "@/lib/data/connection/replicas";

/** The settings of docs/replicas.md, "Configuration", and the WAL positions and lag the monitor reads ("Health"). */

const PG = "postgres://app:pw@10.0.0.11:5432/disputes";

describe("DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_SECONDS", () => {
  it("reads comma-separated postgres:// URLs, none when unset or empty", () => {
    expect(replicaUrls({ DATABASE_URL: PG })).toEqual([]);
    expect(replicaUrls({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "  " })).toEqual([]);
    expect(replicaUrls({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "postgres://app:pw@10.0.0.12/disputes, postgresql://app:pw@10.0.0.13:5433/disputes" })).toEqual([
      "postgres://app:pw@10.0.0.12/disputes",
      "postgresql://app:pw@10.0.0.13:5433/disputes",
    ]);
  });

  it("stops the start on a bad list, never printing a password", () => {
    expect(configurationProblems({ DATABASE_REPLICA_URLS: "postgres://app:pw@10.0.0.12/disputes" })).toEqual([
      "DATABASE_REPLICA_URLS needs a postgres:// DATABASE_URL: replicas are PostgreSQL streaming standbys of it",
    ]);
    const [problem] = configurationProblems({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "mysql://app:secret-pw@10.0.0.12/disputes" });
    expect(problem).toMatch(/^DATABASE_REPLICA_URLS must be comma-separated postgres:\/\/ URLs/);
    expect(problem).not.toContain("secret-pw");
    expect(configurationProblems({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "postgres://a@h1/d,,postgres://a@h2/d" })[0]).toMatch(/^DATABASE_REPLICA_URLS must be/);
    expect(configurationProblems({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "postgres://a@h1/d,postgres://a@h1/d" })).toEqual(["DATABASE_REPLICA_URLS names the same URL twice"]);
    expect(configurationProblems({ DATABASE_URL: PG, DATABASE_REPLICA_URLS: "postgres://a@h1/d" })).toEqual([]);
  });

  it("leaves out a replica more than 5 seconds behind unless told otherwise, 1 to 3600", () => {
    expect(replicaMaxLagSeconds({})).toBe(5);
    expect(replicaMaxLagSeconds({ REPLICA_MAX_LAG_SECONDS: "30" })).toBe(30);
    expect(configurationProblems({ REPLICA_MAX_LAG_SECONDS: "0" })).toEqual(['REPLICA_MAX_LAG_SECONDS must be a whole number from 1 to 3600, got "0"']);
    expect(configurationProblems({ REPLICA_MAX_LAG_SECONDS: "2.5" })).toHaveLength(1);
  });
});

describe("WAL positions", () => {
  it("reads PostgreSQL's pg_lsn text as bytes, so that positions compare across the 4 GB boundary", () => {
    expect(parseLsn("0/0")).toBe(0n);
    expect(parseLsn("0/16B3748")).toBe(0x16b3748n);
    expect(parseLsn("1/0")).toBe(0x100000000n);
    expect(parseLsn("16/B374D848")).toBe(0x16b374d848n);
    expect(parseLsn("1/0") > parseLsn("0/FFFFFFFF")).toBe(true);
  });
});

describe("a replica's lag", () => {
  // the primary's WAL insert positions a second apart, the last one read at t = 10 s
  const positions = [0, 1, 2, 3].map((i) => ({ lsn: BigInt(1000 * (i + 1)), at: 7_000 + 1000 * i }));
  const now = 10_050;

  it("is 0 once the replica has replayed what the primary had written at the last check", () => {
    expect(replicaLagSeconds(positions, 4000n, 9_000, now)).toBe(0);
    expect(replicaLagSeconds(positions, 4500n, null, now)).toBe(0);
  });

  it("is the time since its last replayed commit when that is the smaller bound (a busy primary, milliseconds behind)", () => {
    expect(replicaLagSeconds(positions, 3990n, 10_000, now)).toBeCloseTo(0.05, 5);
  });

  it("is the age of the newest position it reached when that is smaller (an idle primary's checkpoint record not yet replayed)", () => {
    expect(replicaLagSeconds(positions, 3990n, 10_050 - 3_600_000, now)).toBeCloseTo(1.05, 5);
  });

  it("grows while replay is paused, and is unknown when neither bound is", () => {
    expect(replicaLagSeconds(positions, 1500n, 7_500, now)).toBeCloseTo(2.55, 5);
    expect(replicaLagSeconds(positions, 500n, null, now)).toBeNull();
  });

  it("is 0 while no position of the primary is known (nothing says it is behind)", () => {
    expect(replicaLagSeconds([], 500n, null, now)).toBe(0);
  });
});
