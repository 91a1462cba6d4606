/**
 * npm run demo -- [--records 5000] [--no-serve]
 * One command from a fresh clone: build (when the sources are newer than the build), load demo
 * acquirer files into the embedded database through the import, create demo credentials, and
 * serve the app on PORT (default 3000). Safe to run again: nothing is loaded or created twice.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createShop, createUser } from "@/lib/auth/accounts";
import { openDatabase } from "@/lib/data/db";
import { DEMO_SHOPS, generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";

const ROOT = path.resolve(import.meta.dirname, "..");
const PASSWORD = "demo-password";
const SHOP = "demo-shop";
const SHOP_PASSWORD = "demo-shop-password";

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds when there is no build, or a source file is newer than it. */
function buildIfNeeded() {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  const sources = ["app", "components", "lib"].filter((d) => fs.existsSync(path.join(ROOT, d))).map((d) => newestSource(path.join(ROOT, d)));
  const built = fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : 0;
  if (built > Math.max(...sources, fs.statSync(path.join(ROOT, "package.json")).mtimeMs)) return;
  console.log("building the app (next build) ...");
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/next"), ["build"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error("next build failed");
}

function recordsOption(): number {
  const i = process.argv.indexOf("--records");
  if (i < 0) return 5000;
  const raw = process.argv[i + 1] ?? "";
  if (!/^\d+$/.test(raw)) throw new Error("--records must be a whole number");
  return Number(raw);
}

async function prepare(records: number) {
  const db = await openDatabase();
  try {
    const loaded = await db.db.selectFrom("imported_files").select("id").limit(1).executeTakeFirst();
    if (loaded) {
      console.log("the database already holds imported files: demo data is not loaded again");
    } else {
      const out = path.join(ROOT, "data", "demo-files");
      fs.rmSync(out, { recursive: true, force: true });
      const { files } = generateDemoFiles({ out, seed: 42, chargebacks: records });
      const { ok, results } = await importPaths(db, files, () => {});
      const total = results.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
      if (!ok) throw new Error("the demo files did not import cleanly");
      console.log(`imported ${files.length} demo files (${total} records) from ${path.relative(ROOT, out)}`);
    }
    const nordic = DEMO_SHOPS.filter((s) => s.parentId === DEMO_SHOPS[0].parentId).map((s) => s.code);
    const all = DEMO_SHOPS.map((s) => s.code);
    const users = new Set((await db.db.selectFrom("users").select("email").execute()).map((u) => u.email));
    if (!users.has("merchant@demo.test")) await createUser(db.db, { email: "merchant@demo.test", password: PASSWORD, access: nordic });
    if (!users.has("analyst@demo.test")) await createUser(db.db, { email: "analyst@demo.test", password: PASSWORD, access: all });
    const shop = await db.db.selectFrom("shops").select("shop_code").where("shop_code", "=", SHOP).executeTakeFirst();
    if (!shop) await createShop(db.db, { shopCode: SHOP, password: SHOP_PASSWORD, access: nordic });
    return { nordic, all };
  } finally {
    await db.close();
  }
}

function banner(port: string, nordic: string[]) {
  const base = `http://localhost:${port}`;
  console.log(`
Dispute review demo is running at ${base}

Sign in at ${base}/login
  merchant@demo.test / ${PASSWORD}   (shops ${nordic.join(", ")})
  analyst@demo.test  / ${PASSWORD}   (every demo shop)

API reference: ${base}/docs   OpenAPI: ${base}/api/openapi.json
Call the API as shop ${SHOP}:

  SHOP=${SHOP}
  PASSWORD=${SHOP_PASSWORD}
  NONCE="$(date +%s%N)-$(openssl rand -hex 8)"
  SIGNATURE=$(printf '%s%s' "$NONCE" "$PASSWORD" | sha256sum | cut -d' ' -f1)
  curl -s ${base}/api/chargeback -H 'Content-Type: application/json' \\
    -H "X-Shop-Code: $SHOP" -H "X-Nonce: $NONCE" -H "X-Signature: $SIGNATURE" \\
    -d '{"per_page": 20, "sortKey": "FILE_DATE", "sortOrder": "desc"}'
`);
}

async function main() {
  const records = recordsOption();
  const serve = !process.argv.includes("--no-serve");
  if (serve) buildIfNeeded();
  const { nordic } = await prepare(records);
  if (!serve) return;
  const port = process.env.PORT || "3000";
  const server = spawn(path.join(ROOT, "node_modules/.bin/next"), ["start", "-p", port], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  server.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (chunk.toString().includes("Ready")) banner(port, nordic);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
  server.on("exit", (code) => process.exit(code ?? 0));
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
