import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { importColumns } from "@/lib/domain/fields";
import { runCli } from "../helpers/cli";
import { type Backend, backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { expectRecordCountsInStep } from "../helpers/record-checks";
import { startServer, type TestServer } from "../helpers/server";
import {
  ACQ_REFS,
  CREDENTIALS,
  FILE_DATES,
  type Kind,
  MERCHANTS,
  type ModelRecord,
  ORDERS,
  PARENTS,
  prng,
  TRANSACTION_IDS,
  writeFixture,
} from "./fixture";
import { type ApiEnv, type PostOptions, sharedApiEnv, signedHeaders, sign, newNonce } from "./harness";
import { keyValue, modelSummary, type SummaryRequest } from "./summary-model";

/**
 * The summaries (docs/api.md, "Summaries") against `next start` on each backend: generated requests answered
 * by the server and by the model below (plain JS over the fixture's records, exact sums in BigInt
 * minor units), byte for byte; then the 400s of group_by, more than 10,000 groups on data made
 * for it, and the order of the checks.
 */

const DIMENSIONS: Record<Kind, string[]> = {
  chargeback: ["month", "file_date", "shop_code", "merchant_id", "card_type", "reason_code", "function_code", "documents"],
  pre_arbitration: ["month", "file_date", "shop_code", "merchant_id", "case_stage"],
};

// ---- Requests ---------------------------------------------------------------------------------

/** Dates on, just before and just after month ends and the fixture's file dates. */
const DATES = [
  ...new Set([...FILE_DATES.chargeback, ...FILE_DATES.pre_arbitration, "2025-12-31", "2026-01-01", "2026-01-02", "2026-01-31", "2026-02-02", "2026-02-15", "2026-02-27", "2026-03-31", "2026-04-01"]),
].sort();

function randomRequest(r: ReturnType<typeof prng>, kind: Kind, access: readonly string[]): SummaryRequest {
  const req: SummaryRequest = {};
  if (r.chance(0.45)) req.file_date_from = r.pick(DATES);
  if (r.chance(0.45)) req.file_date_to = r.pick(DATES.filter((d) => !req.file_date_from || d >= req.file_date_from));
  if (r.chance(0.3)) req.shop_codes = r.subset(access, 4);
  // About half of the requests filter by scope and dates only (answered from record_sums), the
  // rest by a record value too (answered from the records).
  if (r.chance(0.5)) {
    if (r.chance(0.3)) req.merchant_id = r.pick([...MERCHANTS, "M999"]);
    if (kind === "chargeback" && r.chance(0.3)) req.parent_merchant_id = r.pick([...PARENTS, "P9"]);
    if (r.chance(0.3)) req.acq_ref_nrs = r.subset([...ACQ_REFS, "nope"], 20);
    if (kind === "chargeback" && r.chance(0.2)) req.transaction_ids = r.subset([...TRANSACTION_IDS, "T404"], 3);
    if (kind === "pre_arbitration" && r.chance(0.2)) req.payment_ids = r.subset(["PAY-shared", "PA-1", "PA-7", "PA-60", "PA-999"], 3);
    if (r.chance(0.2)) req.payment_order_nrs = r.subset([...ORDERS, "none"], 4);
  }
  if (r.chance(0.1)) req.merchant_id = null;
  if (r.chance(0.1)) req.acq_ref_nrs = [];
  const dims = r.int(0, 2);
  if (dims > 0) req.group_by = r.subset(DIMENSIONS[kind], dims).slice(0, dims);
  else if (r.chance(0.5)) req.group_by = r.chance(0.5) ? [] : null;
  return req;
}

async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return (await res.json()) as { errors?: { field: string; message: string }[]; detail: string };
}

async function expectFieldErrors(res: Response, fields: string[]) {
  const body = await expectProblem(res, 400);
  expect(body.errors?.map((e) => e.field).sort()).toEqual([...fields].sort());
  for (const e of body.errors ?? []) expect(e.message.length).toBeGreaterThan(0);
}

describe.each(backends)("summaries on $name", (backend) => {
  let env: ApiEnv;
  const summary = (kind: Kind, body: unknown, opts: PostOptions = {}) => env.post(kind, body, { ...opts, path: "/summary" });

  /** Posts the request and compares the answer with the model, byte for byte. */
  async function expectModel(kind: Kind, req: SummaryRequest, credential: keyof typeof CREDENTIALS = "wide") {
    const res = await summary(kind, req, { credential });
    const text = await res.text();
    expect(res.status, `${JSON.stringify(req)} -> ${text}`).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const want = modelSummary(kind, env.fixture.records[kind], req, CREDENTIALS[credential].access);
    // A readable difference first, then the exact text (two decimals, member order).
    expect(JSON.parse(text), JSON.stringify(req)).toEqual(JSON.parse(want));
    expect(text, JSON.stringify(req)).toBe(want);
    return JSON.parse(text) as { groups: { key: Record<string, unknown>; count: number }[]; totalElements: number };
  }

  beforeAll(async () => {
    env = await sharedApiEnv(backend);
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  it("has the variety the model needs: reversals, several currencies, every dimension with several values", () => {
    const cb = env.fixture.records.chargeback;
    expect(cb.filter((rec) => rec.rev_indicator === "R").length).toBeGreaterThan(20);
    expect(new Set(cb.map((rec) => rec.chb_ccy)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(env.fixture.records.pre_arbitration.map((rec) => rec.ccy)).size).toBeGreaterThanOrEqual(2);
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      for (const dim of DIMENSIONS[kind]) expect(new Set(env.fixture.records[kind].map((rec) => keyValue(rec, dim))).size, dim).toBeGreaterThan(1);
    }
  });

  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    it(`agrees with the model on 150 random ${kind} summaries`, async () => {
      const r = prng(kind === "chargeback" ? 9001 : 9002);
      let nonEmpty = 0;
      for (let i = 0; i < 150; i++) {
        const credential = r.pick(["wide", "wide", "narrow", "self"] as const);
        const body = await expectModel(kind, randomRequest(r, kind, CREDENTIALS[credential].access), credential);
        if (body.totalElements > 0) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThan(60);
    });

    // Hundreds of requests each: more than the default minute on a busy machine.
    it(`groups ${kind} by every dimension and every pair, from record_sums and from the records alike`, async () => {
      const dims = DIMENSIONS[kind];
      const groupings = [[], ...dims.map((d) => [d]), ...dims.flatMap((a) => dims.filter((b) => b !== a).map((b) => [a, b]))];
      // Every record has one of ACQ_REFS: the same selection, answered from the records.
      const viaRecords = { acq_ref_nrs: ACQ_REFS };
      for (const group_by of groupings) {
        for (const credential of ["wide", "narrow"] as const) {
          const whole = await expectModel(kind, { group_by }, credential);
          expect(await expectModel(kind, { group_by, ...viaRecords }, credential)).toEqual(whole);
          const range = { file_date_from: "2026-01-06", file_date_to: "2026-02-28" };
          const ranged = await expectModel(kind, { group_by, ...range }, credential);
          expect(await expectModel(kind, { group_by, ...range, ...viaRecords }, credential)).toEqual(ranged);
        }
      }
    }, 300_000);

    it(`answers the ${kind} pairs of value dimensions (stored pairs of record_sums) as the model does`, async () => {
      // Every pair of the value dimensions (the documents extension's too), typed out; both orders.
      const values = kind === "chargeback" ? ["merchant_id", "card_type", "reason_code", "function_code", "documents"] : ["merchant_id", "case_stage"];
      const pairs = values.flatMap((a, i) => values.slice(i + 1).flatMap((b) => [[a, b], [b, a]]));
      // Days at the start, whole months, the latest month (2026-03), months covered in part read
      // whole less the days outside (January less 01-05, February less 02-01 or 02-28, each a file
      // date: records taken away), and a scope.
      const ranges = [
        {},
        { file_date_from: "2026-01-06", file_date_to: "2026-03-01" },
        { file_date_from: "2026-02-01" },
        { file_date_to: "2026-02-28" },
        { file_date_from: "2026-01-06", file_date_to: "2026-02-27" },
        { file_date_from: "2026-02-02", file_date_to: "2026-03-31" },
        { file_date_from: "2026-02-02", file_date_to: "2026-02-27" },
      ];
      for (const group_by of pairs) {
        for (const credential of ["wide", "narrow", "self"] as const) {
          for (const range of [...ranges, { shop_codes: CREDENTIALS[credential].access.slice(0, 3) }]) await expectModel(kind, { group_by, ...range }, credential);
        }
      }
    }, 300_000);

    it(`answers ${kind} totalElements equal to the search's for the same filters`, async () => {
      const r = prng(kind === "chargeback" ? 77 : 78);
      for (let i = 0; i < 40; i++) {
        const { group_by: groupBy, ...filters } = randomRequest(r, kind, CREDENTIALS.wide.access);
        const sum = await (await summary(kind, { ...filters, group_by: groupBy })).json();
        const search = await (await env.post(kind, filters)).json();
        expect(sum.totalElements, JSON.stringify(filters)).toBe(search.totalElements);
        expect(sum.groups.reduce((n: number, g: { count: number }) => n + g.count, 0)).toBe(search.totalElements);
      }
    });

    it(`answers an empty ${kind} selection with one empty group, or no groups when grouped`, async () => {
      const empty = kind === "chargeback" ? '{"key":{},"count":0,"reversals":0,"amounts":[]}' : '{"key":{},"count":0,"amounts":[]}';
      for (const filters of [{ file_date_from: "2026-01-10", file_date_to: "2026-01-20" }, { merchant_id: "M999" }, { file_date_from: "2027-01-01" }]) {
        expect(await (await summary(kind, filters)).text()).toBe(`{"groups":[${empty}],"totalElements":0}`);
        expect(await (await summary(kind, { ...filters, group_by: [] })).text()).toBe(`{"groups":[${empty}],"totalElements":0}`);
        expect(await (await summary(kind, { ...filters, group_by: ["month", "shop_code"] })).text()).toBe('{"groups":[],"totalElements":0}');
      }
    });
  }

  it("writes integer keys as JSON integers, ordered numerically", async () => {
    const body = await expectModel("chargeback", { group_by: ["reason_code"] });
    const codes = body.groups.map((g) => g.key.reason_code);
    for (const code of codes) expect(Number.isInteger(code)).toBe(true);
    expect(codes).toEqual([...codes].sort((a, b) => (a as number) - (b as number)));
    // 30 < 41 < ... < 4808: numeric, not text order.
    expect(codes[0]).toBe(30);
  });

  it("orders shop codes bytewise, not by locale", async () => {
    const body = await expectModel("chargeback", { group_by: ["shop_code"] });
    const shops = body.groups.map((g) => g.key.shop_code);
    expect(shops[0]).toBe("SHOP-B");
    expect(shops.at(-1)).toBe("Älpha");
  });

  describe("group_by validation (400)", () => {
    it("refuses unknown, foreign, repeated and too many dimensions, naming group_by or group_by[i]", async () => {
      await expectFieldErrors(await summary("chargeback", { group_by: ["nope"] }), ["group_by[0]"]);
      await expectFieldErrors(await summary("chargeback", { group_by: ["month", "case_stage"] }), ["group_by[1]"]);
      await expectFieldErrors(await summary("pre_arbitration", { group_by: ["card_type"] }), ["group_by[0]"]);
      await expectFieldErrors(await summary("pre_arbitration", { group_by: ["reason_code", "month"] }), ["group_by[0]"]);
      await expectFieldErrors(await summary("chargeback", { group_by: ["Month"] }), ["group_by[0]"]);
      await expectFieldErrors(await summary("chargeback", { group_by: ["month", "month"] }), ["group_by[1]"]);
      await expectFieldErrors(await summary("pre_arbitration", { group_by: ["shop_code", "shop_code"] }), ["group_by[1]"]);
      await expectFieldErrors(await summary("chargeback", { group_by: ["month", "shop_code", "card_type"] }), ["group_by"]);
      await expectFieldErrors(await summary("chargeback", { group_by: "month" }), ["group_by"]);
      await expectFieldErrors(await summary("chargeback", { group_by: [5] }), ["group_by[0]"]);
      await expectFieldErrors(await summary("chargeback", { group_by: {} }), ["group_by"]);
    });

    it("takes null and [] as no grouping", async () => {
      const plain = await (await summary("chargeback", {})).text();
      expect(await (await summary("chargeback", { group_by: null })).text()).toBe(plain);
      expect(await (await summary("chargeback", { group_by: [] })).text()).toBe(plain);
      expect(await (await summary("chargeback", undefined, { rawBody: "" })).text()).toBe(plain);
    });

    it("validates the filters exactly as the search does, and has no paging or sorting", async () => {
      for (const field of ["page", "per_page", "sortKey", "sortOrder"]) {
        await expectFieldErrors(await summary("chargeback", { [field]: field === "sortOrder" ? "asc" : field === "sortKey" ? "ID" : 10 }), [field]);
      }
      await expectFieldErrors(await summary("chargeback", { shop_code: ["shop-a"] }), ["shop_code"]);
      await expectFieldErrors(await summary("pre_arbitration", { transaction_ids: ["T1"] }), ["transaction_ids"]);
      await expectFieldErrors(await summary("chargeback", { file_date_from: "2026-02-30" }), ["file_date_from"]);
      await expectFieldErrors(await summary("chargeback", { file_date_from: "2026-03-01", file_date_to: "2026-02-01" }), ["file_date_from"]);
      await expectFieldErrors(await summary("chargeback", { shop_codes: ["shop-a", ""], group_by: ["nope"] }), ["group_by[0]", "shop_codes[1]"]);
      await expectFieldErrors(await summary("chargeback", [1]), [""]);
      await expectFieldErrors(await summary("chargeback", undefined, { rawBody: "{oops" }), [""]);
    });
  });

  describe("the order of the checks", () => {
    it("answers 405 with Allow: POST to every other method", async () => {
      for (const kind of ["chargeback", "pre_arbitration"] as const) {
        for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
          const res = await summary(kind, {}, { method });
          await expectProblem(res, 405);
          expect(res.headers.get("allow")).toBe("POST");
        }
      }
    });

    it("answers 415 before 413, and 413 before authentication", async () => {
      await expectProblem(await summary("chargeback", {}, { headers: { "Content-Type": "text/plain" } }), 415);
      await expectProblem(await summary("pre_arbitration", {}, { headers: { "Content-Type": "application/json; charset=iso-8859-1" } }), 415);
      const big = JSON.stringify({ group_by: ["month"], pad: "y".repeat(1024 * 1024) });
      const unsigned = await fetch(`${env.server.url}/api/chargeback/summary`, { method: "POST", headers: { "Content-Type": "application/json" }, body: big });
      await expectProblem(unsigned, 413);
    });

    it("answers 401 before validation, with the searches' body", async () => {
      const url = `${env.server.url}/api/pre_arbitration/summary`;
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"group_by": ["nope"]' });
      const body = await expectProblem(res, 401);
      const search = await fetch(`${env.server.url}/api/pre_arbitration`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      const searchBody = await expectProblem(search, 401);
      const strip = (problem: object) => ({ ...problem, request_id: undefined });
      expect(strip(body)).toEqual(strip(searchBody));
    });

    it("answers 400 before 403, and 403 to shops outside the scope", async () => {
      await expectFieldErrors(await summary("chargeback", { shop_codes: ["shop-a"], group_by: ["nope"] }, { credential: "narrow" }), ["group_by[0]"]);
      const body = await expectProblem(await summary("chargeback", { shop_codes: ["Zeta", "shop-a"] }, { credential: "narrow" }), 403);
      expect(body.detail).toContain("shop-a");
      await expectProblem(await summary("pre_arbitration", { shop_codes: ["zeta"], group_by: ["shop_code"] }, { credential: "narrow" }), 403);
      // Without shop_codes the scope is the whole access list, never more.
      const narrow = await expectModel("chargeback", { group_by: ["shop_code"] }, "narrow");
      expect(narrow.groups.map((g) => g.key.shop_code)).toEqual(["Zeta", "shop_b"]);
    });
  });

  it("documents both summaries as extensions in the OpenAPI document, from the same schemas", async () => {
    const doc = await (await fetch(`${env.server.url}/api/openapi.json`)).json();
    for (const [kind, request] of [
      ["chargeback", "ChargebackSummaryRequest"],
      ["pre_arbitration", "PreArbitrationSummaryRequest"],
    ] as const) {
      const op = doc.paths[`/api/${kind}/summary`].post;
      expect(op.tags).toEqual(["Extensions"]);
      expect(op.description).toMatch(/extension/i);
      expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "403", "405", "413", "415", "429", "500", "503"]);
      expect(op.requestBody.content["application/json"].schema.$ref).toBe(`#/components/schemas/${request}`);
      const schema = doc.components.schemas[request];
      expect(schema.additionalProperties).toBe(false);
      const search = doc.components.schemas[kind === "chargeback" ? "ChargebackSearch" : "PreArbitrationSearch"];
      const filters = Object.keys(search.properties).filter((f) => !["page", "per_page", "sortKey", "sortOrder"].includes(f));
      expect(Object.keys(schema.properties).sort()).toEqual([...filters, "group_by"].sort());
      const groupBy = schema.properties.group_by.anyOf.find((s: { type?: string }) => s.type === "array");
      expect(groupBy.maxItems).toBe(2);
      expect(groupBy.items.enum).toEqual(DIMENSIONS[kind]);
    }
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain("Extensions");
    const html = await (await fetch(`${env.server.url}/docs`)).text();
    expect(html).toContain("/api/chargeback/summary");
    expect(html).toContain("/api/pre_arbitration/summary");
  });
});

// ---- Files imported out of date order --------------------------------------------------------

/**
 * The fixture's files in another order: a month is closed (its month rows added up) by the first
 * file of a later month, and files of closed months arrive late and add to them. The summaries
 * and record_sums must not notice.
 */
describe.each(backends)("summaries after files imported out of date order on $name", (backend: Backend) => {
  let server: TestServer;
  let records: Record<Kind, ModelRecord[]>;
  // PREARB_30_*: a second file of a date already loaded (bank 30), in the open and a closed month.
  const ORDER = [
    "CHB_20260201", "PREARB_29_20260301", "PREARB_30_20260301", "CHB_20260105", "CHB_20260301", "PREARB_31_20260215",
    "CHB_20260106", "PREARB_29_20260106", "CHB_20260228", "PREARB_30_20260106",
  ];

  beforeAll(async () => {
    const dir = tempDir("disputes-summary-order-");
    const fixture = writeFixture(path.join(dir, "files"));
    records = { chargeback: fixture.records.chargeback, pre_arbitration: [...fixture.records.pre_arbitration] };
    for (const date of ["2026-03-01", "2026-01-06"]) {
      // Six of the date's cases again, from another bank.
      const copies = fixture.records.pre_arbitration.filter((rec) => rec.file_date === date).slice(0, 6);
      const columns = importColumns("pre_arbitration");
      const rows = copies.map((rec) => columns.map((c) => String((c === "shop_code" ? rec.__shop : rec[c]) ?? "")));
      const file = path.join(dir, "files", `PREARB_30_${date.replaceAll("-", "")}.csv`);
      fs.writeFileSync(file, stringify([columns, ...rows]));
      fixture.files.push(file);
      records.pre_arbitration.push(...copies.map((rec, i) => ({ ...rec, __id: 10_000 + records.pre_arbitration.length + i, bank_id: "30" })));
    }
    const files = ORDER.map((name) => fixture.files.find((f) => path.basename(f) === `${name}.csv`)!);
    expect(files.filter(Boolean).length).toBe(fixture.files.length);
    const env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0" };
    const imported = await runCli("import.ts", files, env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    for (const cred of Object.values(CREDENTIALS)) {
      const added = await runCli("admin.ts", ["shop", "add", cred.shop, "--password", cred.password, "--access", cred.access.join(",")], env);
      expect(added.code, added.stdout + added.stderr).toBe(0);
    }
    const db = await openDatabase(env.DATABASE_URL);
    try {
      await expectRecordCountsInStep(db);
    } finally {
      await db.close();
    }
    server = await startServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await dropCreatedDatabases();
  });

  it("agrees with the model on 150 random summaries of each kind", async () => {
    const r = prng(4242);
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      for (let i = 0; i < 150; i++) {
        const credential = r.pick(["wide", "wide", "narrow", "self"] as const);
        const req = randomRequest(r, kind, CREDENTIALS[credential].access);
        const cred = CREDENTIALS[credential];
        const nonce = newNonce();
        const res = await fetch(`${server.url}/api/${kind}/summary`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Shop-Code": cred.shop, "X-Nonce": nonce, "X-Signature": sign(nonce, cred.password) },
          body: JSON.stringify(req),
        });
        const text = await res.text();
        expect(res.status, `${JSON.stringify(req)} -> ${text}`).toBe(200);
        expect(text, JSON.stringify(req)).toBe(modelSummary(kind, records[kind], req, cred.access));
      }
    }
  });
});

// ---- More than 10,000 groups, and sums beyond 2^53 minor units ------------------------------

const BIG = { shop: "big-a", password: "big-password-1", access: ["big-a", "big-b"] };
const HUGE = "9999999999999.99"; // the largest amount the import takes: 10^15 - 1 minor units

/** One chargeback file: 10,000 records of big-a with 10,000 merchants, 21 of big-b with one. */
function bigFile(dir: string): string {
  const columns = importColumns("chargeback");
  const row = (shop: string, i: number, merchant: string, amount: string, rev: string) => {
    const cells: Record<string, string> = {
      shop_code: shop, card: "512345%0001", acq_ref_nr: `BIG-${i}`, merchant_id: merchant, parent_mrch_id: "PX", reason_code: "4837",
      function_code: "450", card_type: "MC", chb_proc_date: "2026-01-05", chb_amount: amount, chb_ccy: "EUR", payment_id: `PAY-BIG-${i}`, rev_indicator: rev,
    };
    return columns.map((c) => cells[c] ?? "");
  };
  const rows = Array.from({ length: 10_000 }, (_, i) => row("big-a", i, `MX${String(i).padStart(5, "0")}`, "1.01", ""));
  for (let i = 0; i < 21; i++) rows.push(row("big-b", 10_000 + i, "N1", HUGE, i % 3 === 0 ? "R" : ""));
  const file = path.join(dir, "CHB_20260105.csv");
  fs.writeFileSync(file, stringify([columns, ...rows]));
  return file;
}

describe.each(backends)("summaries of many groups on $name", (backend: Backend) => {
  let server: TestServer;
  const post = (body: unknown) =>
    fetch(`${server.url}/api/chargeback/summary`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders(BIG.shop, BIG.password) },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    const dir = tempDir("disputes-summary-big-");
    const env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0" };
    const imported = await runCli("import.ts", [bigFile(dir)], env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    const added = await runCli("admin.ts", ["shop", "add", BIG.shop, "--password", BIG.password, "--access", BIG.access.join(",")], env);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    server = await startServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await dropCreatedDatabases();
  });

  // From record_sums (scope alone) and from the records (a filter every record matches).
  for (const [source, filter] of [
    ["record_sums", {}],
    ["the records", { parent_merchant_id: "PX" }],
  ] as const) {
    it(`answers 400 naming group_by past 10,000 groups and 200 at exactly 10,000, from ${source}`, async () => {
      for (const group_by of [["merchant_id"], ["merchant_id", "shop_code"], ["shop_code", "merchant_id"], ["merchant_id", "file_date"]]) {
        const res = await post({ ...filter, group_by });
        const body = await expectProblem(res, 400);
        expect(body.errors?.map((e) => e.field)).toEqual(["group_by"]);
      }
      const res = await post({ ...filter, shop_codes: ["big-a"], group_by: ["merchant_id"] });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.groups.length).toBe(10_000);
      expect(body.totalElements).toBe(10_000);
      expect(body.groups[0].key).toEqual({ merchant_id: "MX00000" });
      expect(body.groups.at(-1).key).toEqual({ merchant_id: "MX09999" });
    });

    it(`adds amounts beyond 2^53 minor units exactly, from ${source}`, async () => {
      const text = await (await post({ ...filter, shop_codes: ["big-b"] })).text();
      // 14 non-reversals and 7 reversals of 10^15 - 1 minor units each.
      const nonReversals = 14n * 999_999_999_999_999n;
      const reversals = 7n * 999_999_999_999_999n;
      const decimal = (v: bigint) => `${v / 100n}.${String(v % 100n).padStart(2, "0")}`;
      expect(text).toBe(
        `{"groups":[{"key":{},"count":21,"reversals":7,"amounts":[{"currency":"EUR","chb_amount":${decimal(nonReversals)},"reversal_amount":${decimal(reversals)}}]}],"totalElements":21}`,
      );
      expect(decimal(nonReversals)).toBe("139999999999999.86");
    });
  }
});
