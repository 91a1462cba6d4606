import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { chargebackFile, compareBytes, CREDENTIALS, FILE_DATES, type Kind, type ModelRecord, modelSearch, prng } from "./fixture";
import { type ApiEnv, setupApiEnv, signedHeaders } from "./harness";
import { modelSummary } from "./summary-model";

/**
 * POST /api/overview (an extension) against `next start` on each backend: every part must be
 * the summary model's answer for the same scope, period and grouping, byte for byte; the previous
 * period and the Mastercard counts per month are worked out here from the records. The parts are
 * written out here, not taken from lib/.
 */

const PARTS: [string, Kind, "current" | "previous", string[]][] = [
  ["chargebacks", "chargeback", "current", []],
  ["chargebacks_previous", "chargeback", "previous", []],
  ["pre_arbitrations", "pre_arbitration", "current", []],
  ["pre_arbitrations_previous", "pre_arbitration", "previous", []],
  ["by_month_and_scheme", "chargeback", "current", ["month", "card_type"]],
  ["by_reason", "chargeback", "current", ["card_type", "reason_code"]],
  ["by_function_code", "chargeback", "current", ["function_code"]],
  ["by_documents", "chargeback", "current", ["documents"]],
  ["by_shop", "chargeback", "current", ["shop_code"]],
  ["by_merchant", "chargeback", "current", ["merchant_id"]],
];

/** A busy month: enough Mastercard chargebacks per merchant to pass the program's floors. */
const BUSY_DATE = "2026-05-12";

const DAY = 86_400_000;
const toDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ms = (date: string) => Date.parse(`${date}T00:00:00Z`);

function modelPeriods(from: string, to: string) {
  const days = (ms(to) - ms(from)) / DAY + 1;
  return { current: { from, to, days }, previous: { from: toDate(ms(from) - days * DAY), to: toDate(ms(from) - DAY), days } };
}

function modelMonths(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = new Date(`${from.slice(0, 7)}-01T00:00:00Z`); d.toISOString().slice(0, 7) <= to.slice(0, 7); d.setUTCMonth(d.getUTCMonth() + 1)) out.push(d.toISOString().slice(0, 7));
  return out;
}

/** Per month: merchants with Mastercard chargebacks that are not reversals, the most of one merchant, the floors. */
function modelEcp(records: ModelRecord[], req: { shop_codes?: string[]; file_date_from: string; file_date_to: string }, access: readonly string[]) {
  const selected = modelSearch(records, { ...req, page: 0, per_page: records.length + 1 }, access).content;
  return modelMonths(req.file_date_from, req.file_date_to).map((month) => {
    const counts = new Map<string, number>();
    for (const rec of selected) {
      if ((rec.file_date as string).slice(0, 7) !== month || rec.card_type !== "MC" || rec.rev_indicator === "R") continue;
      counts.set(rec.merchant_id as string, (counts.get(rec.merchant_id as string) ?? 0) + 1);
    }
    const ranked = [...counts].sort(([a, n], [b, m]) => m - n || compareBytes(a, b));
    return {
      month,
      merchants: counts.size,
      top_merchant: ranked[0]?.[0] ?? null,
      top_count: ranked[0]?.[1] ?? 0,
      at_excessive: ranked.filter(([, n]) => n >= 100).length,
      at_high_excessive: ranked.filter(([, n]) => n >= 300).length,
    };
  });
}

describe.each(backends)("overview (extension) on $name", (backend) => {
  let env: ApiEnv;
  const records: Record<Kind, ModelRecord[]> = { chargeback: [], pre_arbitration: [] };

  const post = (body: unknown, credential: keyof typeof CREDENTIALS = "wide", headers: Record<string, string> = {}) => {
    const cred = CREDENTIALS[credential];
    return fetch(`${env.server.url}/api/overview`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders(cred.shop, cred.password), ...headers },
      body: JSON.stringify(body),
    });
  };

  beforeAll(async () => {
    env = await setupApiEnv(backend);
    records.chargeback = [...env.fixture.records.chargeback];
    records.pre_arbitration = [...env.fixture.records.pre_arbitration];
    const busy = chargebackFile(prng(41), BUSY_DATE, 2600, records.chargeback.length + 1);
    const file = path.join(env.fixture.dir, `CHB_${BUSY_DATE.replaceAll("-", "")}.csv`);
    fs.writeFileSync(file, stringify([busy.header, ...busy.rows]));
    const imported = await runCli("import.ts", [file], env.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    records.chargeback.push(...busy.records);
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  async function expectModel(req: { shop_codes?: string[]; file_date_from: string; file_date_to: string }, credential: keyof typeof CREDENTIALS) {
    const res = await post(req, credential);
    const text = await res.text();
    expect(res.status, `${JSON.stringify(req)} -> ${text}`).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JSON.parse(text);
    const { current, previous } = modelPeriods(req.file_date_from, req.file_date_to);
    expect(body.period).toEqual(current);
    expect(body.previous).toEqual(previous);
    const access = CREDENTIALS[credential].access;
    for (const [name, kind, period, group_by] of PARTS) {
      const p = period === "current" ? current : previous;
      const want = modelSummary(kind, records[kind], { shop_codes: req.shop_codes, file_date_from: p.from, file_date_to: p.to, group_by }, access);
      expect(body[name], `${name} of ${JSON.stringify(req)}`).toEqual(JSON.parse(want));
      // Exact text: amounts with two decimals, as the summary endpoint writes them.
      expect(text).toContain(`"${name}":${want}`);
    }
    const ecp = modelEcp(records.chargeback, req, access);
    expect(body.excessive_chargebacks, JSON.stringify(req)).toEqual(ecp);
    expect(Object.keys(body).sort()).toEqual(["period", "previous", ...PARTS.map(([name]) => name), "excessive_chargebacks"].sort());
    return body as { excessive_chargebacks: ReturnType<typeof modelEcp>; chargebacks: { totalElements: number } };
  }

  it("answers every part as the summaries would, and the Mastercard counts as counted from the records", async () => {
    const dates = [...new Set([...FILE_DATES.chargeback, ...FILE_DATES.pre_arbitration, BUSY_DATE, "2025-11-30", "2026-01-01", "2026-01-31", "2026-02-15", "2026-03-31", "2026-05-31"])].sort();
    const r = prng(4242);
    let nonEmpty = 0;
    for (let i = 0; i < 24; i++) {
      const from = r.pick(dates);
      const to = r.pick(dates.filter((d) => d >= from));
      const credential = r.pick(["wide", "wide", "narrow", "self"] as const);
      const req = { ...(r.chance(0.3) ? { shop_codes: r.subset([...CREDENTIALS[credential].access], 3) } : {}), file_date_from: from, file_date_to: to };
      if ((await expectModel(req, credential)).chargebacks.totalElements > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(8);
  });

  it("counts merchants at and over the program's floors, a month at a time", async () => {
    const body = await expectModel({ file_date_from: "2026-01-01", file_date_to: "2026-05-31" }, "wide");
    const may = body.excessive_chargebacks.find((m) => m.month === "2026-05")!;
    expect(may.at_excessive).toBeGreaterThan(0);
    expect(may.top_count).toBeGreaterThanOrEqual(100);
    expect(body.excessive_chargebacks.map((m) => m.month)).toEqual(["2026-01", "2026-02", "2026-03", "2026-04", "2026-05"]);
    expect(body.excessive_chargebacks.find((m) => m.month === "2026-04")).toMatchObject({ merchants: 0, top_merchant: null, top_count: 0 });
  });

  it("refuses what the searches refuse, in their order, and a period whose previous one begins before year 1", async () => {
    const fields = async (res: Response) => {
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      return ((await res.json()).errors as { field: string }[]).map((e) => e.field).sort();
    };
    expect(await fields(await post({}))).toEqual(["file_date_from", "file_date_to"]);
    expect(await fields(await post({ file_date_from: "2026-02-01", file_date_to: "2026-01-01" }))).toEqual(["file_date_from"]);
    expect(await fields(await post({ file_date_from: "2026-02-30", file_date_to: "2026-03-01" }))).toEqual(["file_date_from"]);
    expect(await fields(await post({ file_date_from: "0001-01-01", file_date_to: "0001-01-10" }))).toEqual(["file_date_from"]);
    // The previous period would begin on 0000-12-31 (found by the fuzzer: a 500 on PostgreSQL).
    expect(await fields(await post({ file_date_from: "1970-01-01", file_date_to: "3939-01-01" }))).toEqual(["file_date_from"]);
    expect((await post({ file_date_from: "1970-01-01", file_date_to: "3938-12-31" })).status).toBe(200);
    expect(await fields(await post({ file_date_from: "2026-01-01", file_date_to: "2026-01-31", group_by: ["month"] }))).toEqual(["group_by"]);
    expect((await post({ file_date_from: "2026-01-01", file_date_to: "2026-01-31", shop_codes: ["zz", "shop-a"] }, "self")).status).toBe(403);
    expect((await post({}, "wide", { "X-Signature": "0".repeat(64) })).status).toBe(401);
    expect((await fetch(`${env.server.url}/api/overview`)).status).toBe(405);
  });

  it("is described in the OpenAPI document as an extension", async () => {
    const doc = await (await fetch(`${env.server.url}/api/openapi.json`)).json();
    const op = doc.paths["/api/overview"].post;
    expect(op.tags).toEqual(["Extensions"]);
    const schema = doc.components.schemas.Overview;
    expect(Object.keys(schema.properties).sort()).toEqual(["period", "previous", ...PARTS.map(([name]) => name), "excessive_chargebacks"].sort());
    for (const [name] of PARTS) expect(op.description).toContain(`\`${name}\``);
  });
});
