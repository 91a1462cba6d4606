import { describe, expect, it } from "vitest";
import { replicaMaxLagSeconds, replicaUrls } from "@/lib/config";
import { configurationProblems } from "@/lib/config-check";
import { parseLsn } from "@/lib/data/replicas";

/** The settings of docs/replicas.md, "Configuration", and the WAL positions the monitor compares. */

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
