import fs from "node:fs";
import path from "node:path";
import { runCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";
import { startServer } from "../helpers/server";
import { SHOPS, writeFixtureFiles } from "./fixture";

/**
 * One production server (`next start` over the existing build) on a fresh SQLite database that
 * holds the deterministic fixture, with two dashboard users. The tests learn where it runs from
 * E2E_BASE_URL and read the database itself from E2E_DATABASE_FILE to check what they see.
 */

export const USERS = {
  merchant: { email: "merchant@e2e.test", password: "e2e-password-1", access: [SHOPS.a, SHOPS.b] },
  single: { email: "single@e2e.test", password: "e2e-password-2", access: [SHOPS.a] },
};

export default async function globalSetup() {
  const dir = tempDir("disputes-e2e-");
  const dbFile = path.join(dir, "disputes.sqlite");
  const env = { DATABASE_URL: `file:${dbFile}` };
  writeFixtureFiles(path.join(dir, "import"));

  const imported = await runCli("import.ts", [path.join(dir, "import")], env);
  if (imported.code !== 0) throw new Error(`fixture import failed:\n${imported.stdout}\n${imported.stderr}`);
  for (const user of Object.values(USERS)) {
    const added = await runCli("admin.ts", ["user", "add", user.email, "--password", user.password, "--access", user.access.join(",")], env);
    if (added.code !== 0) throw new Error(`user add failed:\n${added.stdout}\n${added.stderr}`);
  }

  const server = await startServer(env);
  process.env.E2E_BASE_URL = server.url;
  process.env.E2E_DATABASE_FILE = dbFile;
  fs.mkdirSync(path.resolve(import.meta.dirname, "../../docs/screenshots"), { recursive: true });

  return async () => {
    await server.stop();
    if (process.env.E2E_KEEP_DB !== "1") fs.rmSync(dir, { recursive: true, force: true });
  };
}
