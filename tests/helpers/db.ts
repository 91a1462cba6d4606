import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * Real databases for tests: a fresh SQLite file per call, and a fresh PostgreSQL database per
 * call when TEST_DATABASE_URL names a server (the role needs CREATEDB). When TEST_DATABASE_URL is
 * set but the server is unreachable, tests fail instead of skipping.
 */

export const PG_URL = process.env.TEST_DATABASE_URL || "";

export interface Backend {
  name: "sqlite" | "postgres";
  /** creates an empty database and returns its DATABASE_URL */
  create(): Promise<string>;
}

export function tempDir(prefix = "disputes-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const sqliteBackend: Backend = {
  name: "sqlite",
  async create() {
    return `file:${path.join(tempDir(), "disputes.sqlite")}`;
  },
};

const createdPgDatabases: string[] = [];

export const postgresBackend: Backend = {
  name: "postgres",
  async create() {
    if (!PG_URL) throw new Error("TEST_DATABASE_URL is not set");
    const name = `disputes_test_${Date.now().toString(36)}_${crypto.randomBytes(4).toString("hex")}`;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    createdPgDatabases.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.toString();
  },
};

/** Drops the PostgreSQL databases this test file created; call from afterAll. */
export async function dropCreatedDatabases(): Promise<void> {
  if (!PG_URL || createdPgDatabases.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const name of createdPgDatabases.splice(0)) {
      // An autovacuum worker (the server's own role) in the database refuses FORCE to a role that
      // may not signal it (42501); it ends within moments, so try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(`drop database if exists ${name} with (force)`);
          break;
        } catch (err) {
          if ((err as { code?: string }).code !== "42501" || attempt === 20) throw err;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    }
  } finally {
    await client.end();
  }
}

/** The backends this run tests: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Backend[] = PG_URL ? [sqliteBackend, postgresBackend] : [sqliteBackend];
