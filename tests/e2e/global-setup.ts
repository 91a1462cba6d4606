import fs from "node:fs";
import path from "node:path";
import { runCli } from "../helpers/cli";
import { buildCommands } from "../helpers/compiled-commands";
import { dropCreatedDatabases, postgresBackend, tempDir } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { HEAD_OFFICE, SHOPS, writeFixtureFiles, writeHeadOfficeFile } from "./fixture";

/**
 * One production server (`node .worker/server.cjs` over the existing build) on a fresh database
 * that holds the deterministic fixture, with two dashboard users. The database is SQLite, or a
 * new PostgreSQL database on the TEST_DATABASE_URL server when E2E_BACKEND=postgres; it is
 * dropped (deleted) at the end unless E2E_KEEP_DB=1. The tests learn where the server runs from
 * E2E_BASE_URL and open the database itself from E2E_DATABASE_URL (helpers.ts testDb()).
 */

export const USERS = {
  merchant: { email: "merchant@e2e.test", password: "e2e-password-1", access: [SHOPS.a, SHOPS.b] },
  /** the merchant's shops, for the saved views' tests alone: a default view of theirs must not open in another file's test running beside them */
  views: { email: "views@e2e.test", password: "e2e-password-4", access: [SHOPS.a, SHOPS.b] },
  single: { email: "single@e2e.test", password: "e2e-password-2", access: [SHOPS.a] },
  /** 200 shops of 40 merchants under 8 parents (fixture.ts, HEAD_OFFICE) */
  headOffice: { email: "head-office@e2e.test", password: "e2e-password-3", access: [...HEAD_OFFICE.shops] },
};

export type E2eBackend = "sqlite" | "postgres";

export function e2eBackend(): E2eBackend {
  const name = process.env.E2E_BACKEND || "sqlite";
  if (name !== "sqlite" && name !== "postgres") throw new Error(`E2E_BACKEND must be sqlite or postgres, got ${JSON.stringify(name)}`);
  return name;
}

export default async function globalSetup() {
  const backend = e2eBackend();
  if (backend === "postgres" && !process.env.TEST_DATABASE_URL) throw new Error("E2E_BACKEND=postgres needs TEST_DATABASE_URL=postgres://...");
  const keep = process.env.E2E_KEEP_DB === "1";
  const dir = tempDir("disputes-e2e-");
  let server: TestServer | undefined;
  // Everything this run made, undone; also when the setup itself fails half way.
  const cleanUp = async () => {
    await server?.stop();
    // The databases postgresBackend.create() made in this module (its list lives in the module
    // of tests/helpers/db.ts that this file imported, so the teardown must come from here).
    if (!keep) await dropCreatedDatabases();
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    buildCommands();
    const databaseUrl = backend === "postgres" ? await postgresBackend.create() : `file:${path.join(dir, "disputes.sqlite")}`;
    const env = { DATABASE_URL: databaseUrl };
    writeFixtureFiles(path.join(dir, "import"));
    writeHeadOfficeFile(path.join(dir, "import"));

    const imported = await runCli("import.ts", [path.join(dir, "import")], env);
    if (imported.code !== 0) throw new Error(`fixture import failed:\n${imported.stdout}\n${imported.stderr}`);
    for (const user of Object.values(USERS)) {
      const added = await runCli("admin.ts", ["user", "add", user.email, "--password", user.password, "--access", user.access.join(",")], env);
      if (added.code !== 0) throw new Error(`user add failed:\n${added.stdout}\n${added.stderr}`);
    }

    server = await startServer(env);
    process.env.E2E_BASE_URL = server.url;
    process.env.E2E_DATABASE_URL = databaseUrl;
    if (keep) console.log(`E2E database kept: ${databaseUrl}`);
    if (process.env.E2E_SCREENSHOTS === "1") fs.mkdirSync(path.resolve(import.meta.dirname, "../../docs/screenshots"), { recursive: true });
  } catch (err) {
    await cleanUp();
    throw err;
  }

  return cleanUp;
}
