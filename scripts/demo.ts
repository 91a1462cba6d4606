/**
 * npm run demo -- [--records <n>] [--no-serve]
 *
 * One command from a fresh clone:
 *  1. builds the app (`next build`) when .next/BUILD_ID is missing or older than the newest file
 *     under app/, components/, lib/, public/, server/ or a root build input (package.json, next.config.*,
 *     tsconfig.json, proxy.ts, ...); otherwise the existing build is served;
 *  2. writes demo acquirer files to data/demo-files (DEMO_FILES_DIR overrides) and loads them
 *     through the same import as `npm run import`;
 *  3. creates the demo sign-ins and API credential, keeping any that already exist;
 *  4. serves the app with `next start` on PORT (default 3000) and prints how to sign in and a
 *     signed curl call. --no-serve stops after step 3 (and skips the build).
 *
 * --records <n> (default 5000) is the total number of demo records: six in seven are
 * chargebacks, the rest pre-arbitration cases, in files of the last 120 days. A second run reuses
 * the files it wrote (the import skips them as already imported) as long as --records is the
 * same, and on a later day first adds the files of the days since, as an acquirer would, so the
 * worklist shows disputes due this week, overdue and recently expired whatever day it is run; a
 * database that already holds other imported files gets no new demo set.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createShop, createUser, findShopCredential, verifyUserLogin } from "@/lib/auth/accounts";
import { ConfigError, databaseTarget } from "@/lib/config";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { addDays, dayNumber, daysBetween, utcToday } from "@/lib/domain/calendar";
import { DEMO_SHOPS, generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";
import { productionServerCommand, SERVER_BUNDLE } from "@/server/command";

const ROOT = path.resolve(import.meta.dirname, "..");
const SEED = 42;
const DEFAULT_RECORDS = 5000;
const USER_PASSWORD = "demo-password";
const API_SHOP = DEMO_SHOPS[0];
const API_SHOP_PASSWORD = "demo-shop-password";

/** The first merchant's shops (the API credential) and its parent group's (the merchant user). */
const API_SHOP_ACCESS = DEMO_SHOPS.filter((s) => s.merchantId === API_SHOP.merchantId).map((s) => s.code);
const MERCHANT_ACCESS = DEMO_SHOPS.filter((s) => s.parentId === API_SHOP.parentId).map((s) => s.code);
const ALL_SHOPS = DEMO_SHOPS.map((s) => s.code);
const USERS = [
  { email: "merchant@demo.test", access: MERCHANT_ACCESS, note: `shops of ${API_SHOP.parentName}: ${MERCHANT_ACCESS.join(", ")}` },
  { email: "analyst@demo.test", access: ALL_SHOPS, note: `all ${ALL_SHOPS.length} demo shops` },
];

class DemoError extends Error {}

// ---------------------------------------------------------------------------------- options

interface Options {
  records: number;
  serve: boolean;
  port: number;
}

function parseOptions(argv: string[]): Options {
  let records = DEFAULT_RECORDS;
  let serve = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--no-serve") serve = false;
    else if (arg === "--records" || arg.startsWith("--records=")) {
      const raw = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      if (raw === undefined || !/^\d{1,8}$/.test(raw) || Number(raw) < 1) throw new DemoError("--records needs a whole number of at least 1");
      records = Number(raw);
    } else throw new DemoError(`unknown option ${arg} (usage: npm run demo -- [--records <n>] [--no-serve])`);
  }
  const rawPort = process.env.PORT || "3000";
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) throw new DemoError("PORT must be a port number (1 to 65535)");
  return { records, serve, port };
}

// ------------------------------------------------------------------------------------- build

const BUILD_DIRS = ["app", "components", "lib", "public", "server"];
const BUILD_FILES = /^(package\.json|package-lock\.json|tsconfig\.json|(next|postcss|tailwind)\.config\.[cm]?[jt]s|proxy\.ts|middleware\.ts)$/;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function buildIfNeeded(): void {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  const sources = [
    ...BUILD_DIRS.map((d) => path.join(ROOT, d)).filter((d) => fs.existsSync(d)).map(newestMtime),
    ...fs.readdirSync(ROOT).filter((f) => BUILD_FILES.test(f)).map((f) => fs.statSync(path.join(ROOT, f)).mtimeMs),
  ];
  // The server bundle (.worker/server.cjs) is made by the same build.
  if (fs.existsSync(buildId) && fs.existsSync(SERVER_BUNDLE) && fs.statSync(buildId).mtimeMs > Math.max(0, ...sources)) {
    console.log("demo: the build in .next is newer than the sources; not building again");
    return;
  }
  console.log("demo: building the app (next build) ...");
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/next"), ["build"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new DemoError("next build failed (its output is above)");
}

// -------------------------------------------------------------------------------- demo files

interface Manifest {
  seed: number;
  records: number;
  files: string[];
  /** the last file date of the set (absent in sets written before catching up existed) */
  end?: string;
  /** chargeback rows made so far: where the next files' payment ids go on */
  serialEnd?: number;
}

const DEMO_DAYS = 120;
const chargebacksOf = (records: number) => Math.round((records * 6) / 7);

function filesDir(): string {
  return path.resolve(process.env.DEMO_FILES_DIR || path.join(ROOT, "data", "demo-files"));
}

function readManifest(dir: string): Manifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, "demo.json"), "utf8")) as Manifest;
    return Array.isArray(m.files) && m.files.every((f) => typeof f === "string" && fs.existsSync(path.join(dir, f))) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a new demo set; only files this command writes are removed, whatever the folder holds. */
function writeDemoFiles(dir: string, records: number): string[] {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of fs.readdirSync(dir)) {
    if (/^(CHB_\d{8}|PREARB_\d+_\d{8})\.csv$|^demo\.json$/.test(name)) fs.rmSync(path.join(dir, name));
  }
  const chargebacks = chargebacksOf(records);
  const { files, end, serialEnd } = generateDemoFiles({ out: dir, seed: SEED, chargebacks, preArbitrations: records - chargebacks, days: DEMO_DAYS });
  writeManifest(dir, { seed: SEED, records, files: files.map((f) => path.basename(f)), end, serialEnd });
  return files;
}

function writeManifest(dir: string, manifest: Manifest): void {
  fs.writeFileSync(path.join(dir, "demo.json"), JSON.stringify(manifest, null, 2) + "\n");
}

/**
 * A set made on an earlier day gets the files of the days since, at the set's daily rate, so a
 * demo started again next month still has disputes due this week (an acquirer sends a file every
 * business day). Returns the whole set's files, old and new.
 */
function catchUp(dir: string, manifest: Manifest): string[] {
  const end = manifest.end ?? manifest.files.map((f) => /^CHB_(\d{4})(\d{2})(\d{2})\.csv$/.exec(f)).filter((m) => m !== null).map((m) => `${m[1]}-${m[2]}-${m[3]}`).sort().at(-1);
  const today = utcToday();
  const names = [...manifest.files];
  if (end && end < today) {
    const start = addDays(end, 1)!;
    const days = daysBetween(start, today)! + 1;
    const perDay = manifest.records / DEMO_DAYS;
    const chargebacks = Math.max(1, Math.round(chargebacksOf(manifest.records) / DEMO_DAYS * days));
    const preArbitrations = Math.max(0, Math.round(perDay * days) - chargebacks);
    // The seed of the catch-up differs by its first day, so each day's files are new disputes.
    const made = generateDemoFiles({
      out: dir,
      seed: SEED + dayNumber(start)!,
      chargebacks,
      preArbitrations,
      start,
      end: today,
      serialStart: manifest.serialEnd ?? chargebacksOf(manifest.records),
    });
    names.push(...made.files.map((f) => path.basename(f)));
    writeManifest(dir, { ...manifest, files: names, end: today, serialEnd: made.serialEnd });
    console.log(`demo: added ${made.files.length} files of ${start} to ${today} (${chargebacks + preArbitrations} records), so the demo is as of today`);
  }
  return names.map((f) => path.join(dir, f));
}

async function loadDemoFiles(db: Db, records: number): Promise<void> {
  const dir = filesDir();
  const relative = path.relative(process.cwd(), dir);
  const shown = relative === "" ? "." : relative.startsWith("..") || path.isAbsolute(relative) ? dir : relative;
  const manifest = readManifest(dir);
  let files: string[];
  if (manifest && manifest.seed === SEED && manifest.records === records) {
    files = catchUp(dir, manifest);
  } else {
    const imported = await db.db.selectFrom("imported_files").select("name").limit(1).executeTakeFirst();
    if (imported) {
      console.log(
        `demo: the database already holds imported files and ${shown} holds no demo set of ${records} records; no demo data loaded ` +
          "(use a fresh DATABASE_URL, or the --records of the first run)",
      );
      return;
    }
    console.log(`demo: writing ${records} demo records to ${shown} ...`);
    files = writeDemoFiles(dir, records);
  }

  const lines: string[] = [];
  const { ok, results } = await importPaths(db, files, (line) => lines.push(line));
  if (!ok) {
    for (const line of lines.filter((l) => !/: (imported \d+ records|skipped \(already imported\))$/.test(l)).slice(0, 20)) console.error(line);
    throw new DemoError("the demo files did not import cleanly (problems above)");
  }
  const imported = results.filter((r) => r.status === "imported");
  const records_ = imported.reduce((n, r) => n + (r.status === "imported" ? r.records : 0), 0);
  const skipped = results.length - imported.length;
  console.log(`demo: ${imported.length} files imported (${records_} records), ${skipped} skipped as already imported, from ${shown}`);
}

// ------------------------------------------------------------------------------- credentials

async function ensureCredentials(db: Db): Promise<void> {
  for (const user of USERS) {
    const existing = await db.db.selectFrom("users").select("id").where("email", "=", user.email).executeTakeFirst();
    if (!existing) {
      await createUser(db.db, { email: user.email, password: USER_PASSWORD, access: user.access });
      console.log(`demo: created user ${user.email}`);
    } else if (!(await verifyUserLogin(db.db, user.email, USER_PASSWORD))) {
      console.log(`demo: kept the existing user ${user.email}; its password is not the demo password`);
    }
  }
  const shop = await db.db.selectFrom("shops").select("shop_code").where("shop_code", "=", API_SHOP.code).executeTakeFirst();
  if (!shop) {
    await createShop(db.db, { shopCode: API_SHOP.code, password: API_SHOP_PASSWORD, access: API_SHOP_ACCESS });
    console.log(`demo: created API credential ${API_SHOP.code}`);
  } else {
    let same = false;
    try {
      same = (await findShopCredential(db.db, API_SHOP.code))?.password === API_SHOP_PASSWORD;
    } catch {
      // Stored under another key (APP_SECRET or key file changed): reported below.
    }
    if (!same) console.log(`demo: kept the existing API credential ${API_SHOP.code}; its password is not the demo password or cannot be read with this key`);
  }
}

// ------------------------------------------------------------------------------------ banner

function instructions(base: string): string {
  return `Sign in at ${base}/login (password for both: ${USER_PASSWORD})
  merchant@demo.test   ${USERS[0].note}
  analyst@demo.test    ${USERS[1].note}

API reference: ${base}/docs   OpenAPI document: ${base}/api/openapi.json
API credential: shop ${API_SHOP.code}, password ${API_SHOP_PASSWORD}, access ${API_SHOP_ACCESS.join(", ")}
Signed call (paste into a shell; needs openssl and curl; every run signs a fresh nonce):

  SHOP='${API_SHOP.code}'
  PASSWORD='${API_SHOP_PASSWORD}'
  NONCE="$(date +%s)-$(openssl rand -hex 12)"
  SIGNATURE="$(printf '%s%s' "$NONCE" "$PASSWORD" | openssl dgst -sha256 | awk '{print $NF}')"
  curl -s ${base}/api/chargeback \\
    -H 'Content-Type: application/json' \\
    -H "X-Shop-Code: $SHOP" -H "X-Nonce: $NONCE" -H "X-Signature: $SIGNATURE" \\
    -d '{"per_page": 10, "sortKey": "FILE_DATE", "sortOrder": "desc"}'
`;
}

// -------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const target = databaseTarget();
  if (target.kind === "sqlite") {
    if (target.file === ":memory:") throw new DemoError("DATABASE_URL=file::memory: cannot be shared with the server; name a file");
    // Absolute, so the server reads the same file whatever directory this was started from.
    process.env.DATABASE_URL = `file:${target.file}`;
  }
  if (options.serve) buildIfNeeded();

  const db = await openDatabase();
  try {
    await loadDemoFiles(db, options.records);
    await ensureCredentials(db);
  } finally {
    await db.close();
  }

  const base = `http://localhost:${options.port}`;
  if (!options.serve) {
    console.log(`\ndemo: prepared; serve it with \`npm start\` (PORT=${options.port}).\n\n${instructions(base)}`);
    return;
  }
  const { command, args } = productionServerCommand(options.port);
  const server = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let announced = false;
  server.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (!announced && chunk.toString().includes('"msg":"ready on')) {
      announced = true;
      console.log(`\nThe dispute review demo is running at ${base} (Ctrl-C stops it)\n\n${instructions(base)}`);
    }
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => server.kill(signal));
  // However this process ends (a closed terminal, a crash), the server must not outlive it.
  process.on("exit", () => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
  });
  server.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

main().catch((err: unknown) => {
  const known = err instanceof DemoError || err instanceof ConfigError;
  const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
  console.error(`demo: ${known ? message : `failed: ${message}`}`);
  process.exit(1);
});
