/**
 * npx tsx bench/studies/ab.ts --old <tree> --new <tree> --database <url> --password <pw>
 *   [--shop shop-0001] [--busy-shop shop-0098] [--from 2026-10-01] [--to 2026-10-30] [--rounds 2] [--seconds 10]
 *
 * Two builds of the product (each tree with its own `npm run build`) serve one imported database
 * in turn, old / new / old / new, and each measures the 401 floor, chargeback/a (default page) and
 * chargeback/b (one shop, 30 days, FILE_DATE desc, 100 a page) of the benchmark at 16 connections.
 * It tells whether a class that a full run showed low moved with the code or with the run
 * (docs/performance.md, "Results at one million records"). Loopback only; stops its servers.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { freePort, SERVER_NODE_FLAGS } from "@/server/command";
import { type Credential, load } from "@/scripts/bench/http";

function flag(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required (see the usage at the top of bench/studies/ab.ts)`);
  return value;
}

const trees = { old: flag("old"), new: flag("new") };
const database = flag("database");
const credential: Credential = { shopCode: flag("shop", "shop-0001"), password: flag("password"), access: [] };
const seconds = Number(flag("seconds", "10"));
const b = { shop_codes: [flag("busy-shop", "shop-0098")], file_date_from: flag("from", "2026-10-01"), file_date_to: flag("to", "2026-10-30"), sortKey: "FILE_DATE", sortOrder: "desc", per_page: 100 };
const CLASSES = [
  { name: "floor", body: "{}", credential: undefined, expected: 401 },
  { name: "a", body: "{}", credential, expected: 200 },
  { name: "b", body: JSON.stringify(b), credential, expected: 200 },
];

async function measure(tree: string): Promise<Record<string, { reqPerSec: number; p99: number; failures: number }>> {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, `${tree}/.worker/server.cjs`, "-p", String(port), "-H", "127.0.0.1"], {
    cwd: tree,
    env: { ...process.env, NODE_ENV: "production", DATABASE_URL: database, RATE_LIMIT_PER_MINUTE: "0" },
    stdio: "ignore",
  });
  try {
    const base = new URL(`http://127.0.0.1:${port}`);
    for (let i = 0; ; i++) {
      if (i === 150) throw new Error(`the server of ${tree} did not answer /api/health`);
      const ok = await fetch(new URL("/api/health", base)).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const out: Record<string, { reqPerSec: number; p99: number; failures: number }> = {};
    for (const c of CLASSES) {
      const stats = await load(base, [{ name: c.name, connections: 16, expected: c.expected, call: () => ({ path: "/api/chargeback", body: c.body, credential: c.credential }) }], { warmup: 2, seconds });
      out[c.name] = stats[c.name];
    }
    return out;
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.on("exit", r));
  }
}

for (let round = 1; round <= Number(flag("rounds", "2")); round++) {
  for (const [label, tree] of Object.entries(trees)) {
    const r = await measure(tree);
    const ratio = (k: string) => (r[k].reqPerSec / r.floor.reqPerSec).toFixed(3);
    const load1 = fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    console.log(`round ${round} ${label}: floor ${r.floor.reqPerSec.toFixed(1)} req/s | a ${ratio("a")} (p99 ${r.a.p99} ms) | b ${ratio("b")} (p99 ${r.b.p99} ms) | failures ${r.a.failures + r.b.failures} | load ${load1}`);
  }
}
