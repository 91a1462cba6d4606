/**
 * npm run bench:worklist -- --url <base URL> [--runs 30] [--statuses] [--json <file>]
 *   --shop <code> --password <pw> --access <code,code,... | @file> [--shop ... --password ... --access ...]...
 *
 * Latency of `POST /api/worklist` (docs/api.md, "Worklist") on a running server (`npm start` over
 * an imported history, e.g. the one-million history of docs/performance.md, "The worklist and the
 * overview"), one signed request at a time from a loopback client. Per credential, the request
 * classes of that table follow from the size of its access list (--access: the credential's
 * whole access list, the shop itself included, which the script cannot ask the server for):
 *   100 shops or more: {}, {"page":5000}, {"per_page":1000}, {"shop_codes": <the first 100>}
 *   2 to 99 shops:     {"page":100,"per_page":100}
 *   1 shop:            {}
 * --statuses adds, for a server that knows worklist statuses, every class again with
 * "statuses":["due","overdue","expired"] (what the worklist listed before statuses existed), and
 * per credential {"statuses":["expired"],"expiry_from":<today-30>,"expiry_to":<today-1>} (UTC).
 *
 * Per class: three unmeasured warm-up requests (each SQLite reader thread remembers its own
 * totals), then --runs pairs, each a "cold" request (the class's shops named in shop_codes in a
 * new shuffled order, so no remembered total is reused; with one shop there is no other order)
 * then a "warm" one (the body as written). Prints medians (and p95) in ms and totalElements.
 */
import fs from "node:fs";
import http from "node:http";
import { type Credential, send } from "@/scripts/bench/http";

interface Options {
  url: URL;
  runs: number;
  statuses: boolean;
  json?: string;
  credentials: Credential[];
}

function usage(message: string): never {
  console.error(`bench:worklist: ${message}`);
  console.error(
    "usage: npm run bench:worklist -- --url <base URL> [--runs 30] [--statuses] [--json <file>] --shop <code> --password <pw> --access <code,code,...|@file> [--shop ... --password ... --access ...]...",
  );
  process.exit(1);
}

function accessOf(value: string): string[] {
  const text = value.startsWith("@") ? fs.readFileSync(value.slice(1), "utf8") : value;
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

function parseArgs(argv: string[]): Options {
  let url: URL | undefined;
  let runs = 30;
  let statuses = false;
  let json: string | undefined;
  const credentials: Partial<Credential>[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    if (arg === "--url") url = new URL(value());
    else if (arg === "--runs") runs = Number(value());
    else if (arg === "--statuses") statuses = true;
    else if (arg === "--json") json = value();
    else if (arg === "--shop") credentials.push({ shopCode: value() });
    else if (arg === "--password" || arg === "--access") {
      const last = credentials.at(-1);
      if (!last) usage(`${arg} comes after its --shop`);
      if (arg === "--password") last.password = value();
      else last.access = accessOf(value());
    } else usage(`unknown argument ${arg}`);
  }
  if (!url) usage("--url is required");
  if (!Number.isInteger(runs) || runs < 1) usage("--runs must be a whole number >= 1");
  if (credentials.length === 0) usage("at least one --shop is required");
  for (const c of credentials) {
    if (!c.password || !c.access) usage(`--shop ${c.shopCode} needs --password and --access`);
    if (!c.access.includes(c.shopCode!)) c.access.unshift(c.shopCode!); // the shop always sees itself
  }
  return { url, runs, statuses, json, credentials: credentials as Credential[] };
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface Class {
  credential: Credential;
  label: string;
  body: Record<string, unknown>;
  /** the shops a cold request names, shuffled each time */
  scope: string[];
}

function classesOf(opts: Options): Class[] {
  const out: Class[] = [];
  const ALL = ["due", "overdue", "expired"];
  for (const credential of opts.credentials) {
    const shops = credential.access;
    const first100 = [...shops].sort().slice(0, 100);
    const base: { label: string; body: Record<string, unknown>; scope: string[] }[] =
      shops.length >= 100
        ? [
            { label: "{}", body: {}, scope: shops },
            { label: '{"page":5000}', body: { page: 5000 }, scope: shops },
            { label: '{"per_page":1000}', body: { per_page: 1000 }, scope: shops },
            { label: '{"shop_codes":<100>}', body: { shop_codes: first100 }, scope: first100 },
          ]
        : shops.length >= 2
          ? [{ label: '{"page":100,"per_page":100}', body: { page: 100, per_page: 100 }, scope: shops }]
          : [{ label: "{}", body: {}, scope: shops }];
    for (const c of base) out.push({ credential, ...c });
    if (opts.statuses) {
      for (const c of base) out.push({ credential, label: `${c.label} +all statuses`, body: { ...c.body, statuses: ALL }, scope: c.scope });
      const expiry = { statuses: ["expired"], expiry_from: day(-30), expiry_to: day(-1) };
      out.push({ credential, label: '{"statuses":["expired"],expiry last 30 d}', body: expiry, scope: shops });
    }
  }
  return out;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const p95 = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
};

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = async (c: Class, body: Record<string, unknown>) => {
    const answer = await send(opts.url, { path: "/api/worklist", body: JSON.stringify(body), credential: c.credential }, agent);
    if (answer.status !== 200 || answer.total === undefined) {
      throw new Error(`${c.credential.shopCode} ${JSON.stringify(body).slice(0, 200)}: ${answer.status} ${answer.error ?? answer.snippet ?? ""}`);
    }
    return answer;
  };
  const results = [];
  console.log(`${opts.url.origin}, ${opts.runs} runs per class, loadavg ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`);
  console.log(`${"shops".padStart(5)}  ${"class".padEnd(44)} ${"totalElements".padStart(13)}  ${"first".padStart(7)}  ${"cold p50".padStart(8)} ${"warm p50".padStart(8)}  ${"cold p95".padStart(8)} ${"warm p95".padStart(8)}`);
  for (const c of classesOf(opts)) {
    const first = await once(c, c.body);
    for (let i = 0; i < 3; i++) await once(c, c.body);
    const cold: number[] = [];
    const warm: number[] = [];
    const totals = new Set<number>([first.total!]);
    for (let i = 0; i < opts.runs; i++) {
      const a = await once(c, { ...c.body, shop_codes: shuffled(c.scope) });
      const b = await once(c, c.body);
      cold.push(a.ms);
      warm.push(b.ms);
      totals.add(a.total!).add(b.total!);
    }
    const row = {
      shops: c.credential.access.length,
      credential: c.credential.shopCode,
      class: c.label,
      body: c.body,
      totalElements: [...totals],
      firstMs: first.ms,
      coldP50: median(cold),
      warmP50: median(warm),
      coldP95: p95(cold),
      warmP95: p95(warm),
      cold,
      warm,
    };
    results.push(row);
    const f = (n: number) => n.toFixed(1).padStart(8);
    console.log(
      `${String(row.shops).padStart(5)}  ${c.label.padEnd(44)} ${[...totals].join("/").padStart(13)}  ${f(first.ms).slice(1)}  ${f(row.coldP50)} ${f(row.warmP50)}  ${f(row.coldP95)} ${f(row.warmP95)}`,
    );
  }
  console.log(`loadavg at the end ${fs.readFileSync("/proc/loadavg", "utf8").trim()}`);
  agent.destroy();
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify({ url: opts.url.origin, runs: opts.runs, at: new Date().toISOString(), results }, null, 1)}\n`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
