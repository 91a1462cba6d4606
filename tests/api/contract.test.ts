import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { startServer } from "../helpers/server";
import { CREDENTIALS, type Kind } from "./fixture";
import { type ApiEnv, newNonce, setupApiEnv, sharedApiEnv, sign, signedHeaders } from "./harness";

/** One test per rule of docs/api.md, "Request body", "Response body", "Authentication" and "Errors", against `next start` on each backend. */

const CHARGEBACK_KEYS = [
  "bank_id", "file_date", "card", "acq_ref_nr", "merchant_id", "merchant_name", "reason_code", "parent_mrch_id", "parent_mrch_name",
  "mcc_code", "eci_sli", "doc_indicator", "chb_proc_date", "comments", "function_code", "function_code_name", "rev_indicator",
  "acq_bin", "chb_refer_num", "card_type", "chb_tr_date", "chb_amount", "chb_ccy", "chb_settl_amount", "chb_settl_ccy",
  "chb_amount_transaction_ccy", "tr_amount", "tr_ccy", "tr_date_time", "rev_amount", "rev_ccy", "rev_date_time", "payment_id",
  "xid", "merchant_decision", "merchant_resp_date", "merchant_comments", "merchant_iban_code", "transaction_id",
  "card_acceptor_id", "payment_order_nr",
].sort();
const PRE_ARBITRATION_KEYS = [
  "bank_id", "file_date", "card", "acq_ref_nr", "merchant_id", "merchant_name", "tr_date_time", "amount", "ccy", "xid",
  "transaction_id", "card_acceptor_id", "case_date", "case_stage", "fdl_comments", "merchant_decision", "payment_id", "payment_order_nr",
].sort();

async function expectProblem(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect(body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  return body as { errors?: { field: string; message: string }[]; detail: string };
}

async function expectFieldError(res: Response, field: string) {
  const body = await expectProblem(res, 400);
  expect(body.errors?.map((e) => e.field)).toContain(field);
  for (const e of body.errors ?? []) expect(e.message.length).toBeGreaterThan(0);
}

describe.each(backends)("API contract on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await sharedApiEnv(backend);
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  describe("request validation (400)", () => {
    it("refuses a field the endpoint does not have, naming it", async () => {
      await expectFieldError(await env.post("chargeback", { shop_code: ["shop-a"] }), "shop_code");
      await expectFieldError(await env.post("pre_arbitration", { parent_merchant_id: "P1" }), "parent_merchant_id");
      await expectFieldError(await env.post("pre_arbitration", { transaction_ids: ["T1"] }), "transaction_ids");
      await expectFieldError(await env.post("chargeback", { payment_ids: ["PAY-1"] }), "payment_ids");
    });

    it("treats null and empty arrays as omitted", async () => {
      const plain = await (await env.post("chargeback", {})).json();
      const nulls = await env.post("chargeback", {
        file_date_from: null, file_date_to: null, shop_codes: null, merchant_id: null, parent_merchant_id: null,
        acq_ref_nrs: [], transaction_ids: [], payment_order_nrs: null, page: null, per_page: null, sortKey: null, sortOrder: null,
      });
      expect(nulls.status).toBe(200);
      expect(await nulls.json()).toEqual(plain);
    });

    it("takes an empty body as {}", async () => {
      const res = await env.post("chargeback", undefined, { rawBody: "" });
      expect(res.status).toBe(200);
      expect((await res.json()).totalElements).toBe(env.fixture.records.chargeback.length);
    });

    it("refuses dates that are not real calendar dates, and from after to", async () => {
      await expectFieldError(await env.post("chargeback", { file_date_from: "2026-02-30" }), "file_date_from");
      await expectFieldError(await env.post("chargeback", { file_date_to: "2026-2-3" }), "file_date_to");
      await expectFieldError(await env.post("pre_arbitration", { file_date_to: 20260203 }), "file_date_to");
      await expectFieldError(await env.post("chargeback", { file_date_from: "2026-03-01", file_date_to: "2026-02-01" }), "file_date_from");
      expect((await env.post("chargeback", { file_date_from: "2024-02-29", file_date_to: "2024-02-29" })).status).toBe(200);
    });

    it("checks merchant ids are strings of 1 to 100 characters", async () => {
      await expectFieldError(await env.post("chargeback", { merchant_id: "" }), "merchant_id");
      await expectFieldError(await env.post("chargeback", { parent_merchant_id: "x".repeat(101) }), "parent_merchant_id");
      await expectFieldError(await env.post("chargeback", { merchant_id: 1001 }), "merchant_id");
      expect((await env.post("chargeback", { merchant_id: "x".repeat(100) })).status).toBe(200);
    });

    it("checks array filters item by item, naming the index", async () => {
      await expectFieldError(await env.post("chargeback", { shop_codes: ["shop-a", "", "Zeta"] }), "shop_codes[1]");
      await expectFieldError(await env.post("chargeback", { acq_ref_nrs: ["a", 5] }), "acq_ref_nrs[1]");
      await expectFieldError(await env.post("chargeback", { payment_order_nrs: ["y".repeat(101)] }), "payment_order_nrs[0]");
      await expectFieldError(await env.post("chargeback", { transaction_ids: "T1" }), "transaction_ids");
      await expectFieldError(await env.post("pre_arbitration", { payment_ids: Array.from({ length: 1001 }, (_, i) => `P${i}`) }), "payment_ids");
      expect((await env.post("pre_arbitration", { payment_ids: Array.from({ length: 1000 }, (_, i) => `P${i}`) })).status).toBe(200);
    });

    it("accepts only whole page numbers from 0 to 1,000,000", async () => {
      for (const page of [-1, 1_000_001, 1.5, "1", true]) await expectFieldError(await env.post("chargeback", { page }), "page");
      const last = await env.post("chargeback", { page: 1_000_000 });
      expect(last.status).toBe(200);
      expect((await last.json()).content).toEqual([]);
    });

    it("rejects per_page outside 10..1000 and never clamps it", async () => {
      for (const per_page of [9, 1001, 10.5, "10", 0]) await expectFieldError(await env.post("pre_arbitration", { per_page }), "per_page");
      for (const per_page of [10, 1000]) {
        const res = await env.post("chargeback", { per_page });
        const body = await res.json();
        expect(body.content.length).toBe(Math.min(per_page, env.fixture.records.chargeback.length));
      }
    });

    it("accepts only the endpoint's own sort keys and orders, exactly spelt", async () => {
      await expectFieldError(await env.post("pre_arbitration", { sortKey: "FILE_DATE" }), "sortKey");
      await expectFieldError(await env.post("chargeback", { sortKey: "id" }), "sortKey");
      await expectFieldError(await env.post("chargeback", { sortOrder: "ASC" }), "sortOrder");
      expect((await env.post("chargeback", { sortKey: "FILE_DATE", sortOrder: "desc" })).status).toBe(200);
    });

    it("refuses invalid JSON and bodies that are not objects, with the body's own path", async () => {
      await expectFieldError(await env.post("chargeback", undefined, { rawBody: "{not json" }), "");
      await expectFieldError(await env.post("chargeback", [1, 2]), "");
      await expectFieldError(await env.post("chargeback", undefined, { rawBody: "null" }), "");
      await expectFieldError(await env.post("pre_arbitration", "text"), "");
    });

    it("lists every broken rule at once", async () => {
      const body = await expectProblem(await env.post("chargeback", { per_page: 5, page: -1, sortOrder: "up", shop_codes: [""] }), 400);
      expect(body.errors?.map((e) => e.field).sort()).toEqual(["page", "per_page", "shop_codes[0]", "sortOrder"]);
    });
  });

  describe("responses", () => {
    it("returns exactly the envelope and exactly the record fields, every one present", async () => {
      for (const [kind, keys] of [["chargeback", CHARGEBACK_KEYS], ["pre_arbitration", PRE_ARBITRATION_KEYS]] as const) {
        const body = await (await env.post(kind, { per_page: 1000 })).json();
        expect(Object.keys(body).sort()).toEqual(["content", "totalElements", "totalPages"]);
        for (const rec of body.content) expect(Object.keys(rec).sort()).toEqual(keys);
      }
    });

    it("writes amounts as JSON numbers with exactly two decimals", async () => {
      const text = await (await env.post("chargeback", { per_page: 1000 })).text();
      const amounts = [...text.matchAll(/"(chb_amount|chb_settl_amount|chb_amount_transaction_ccy|tr_amount|rev_amount)":([^,}]+)/g)].map((m) => m[2]);
      expect(amounts.length).toBeGreaterThan(env.fixture.records.chargeback.length);
      for (const raw of amounts) expect(raw).toMatch(/^(null|-?\d+\.\d{2})$/);
      // Every amount the model holds appears with its exact text, e.g. 120.50 and 1000000.00.
      const body = JSON.parse(text) as { content: Record<string, unknown>[] };
      const firstRaw = text.match(/"chb_amount":([^,}]+)/)![1];
      const firstModel = env.fixture.records.chargeback.find((r) => r.payment_id === body.content[0].payment_id)!;
      expect(firstRaw).toBe(firstModel.chb_amount);
      const pa = await (await env.post("pre_arbitration", { per_page: 1000 })).text();
      for (const m of pa.matchAll(/"amount":([^,}]+)/g)) expect(m[1]).toMatch(/^\d+\.\d{2}$/);
    });

    it("returns indicators, codes and dates as delivered", async () => {
      const body = await (await env.post("chargeback", { per_page: 1000 })).json();
      const docs = new Set(body.content.map((r: { doc_indicator: unknown }) => JSON.stringify(r.doc_indicator)));
      expect(docs).toEqual(new Set(["0", "1", '" "', "null"]));
      const revs = new Set(body.content.map((r: { rev_indicator: unknown }) => JSON.stringify(r.rev_indicator)));
      expect(revs).toEqual(new Set(['"R"', '" "', "null"]));
      expect(body.content.some((r: { chb_tr_date: unknown }) => r.chb_tr_date === "0000-00-00")).toBe(true);
      for (const rec of body.content) {
        expect(rec.bank_id).toBe("29");
        expect(Number.isInteger(rec.reason_code)).toBe(true);
        expect([450, 451, 453, 454]).toContain(rec.function_code);
      }
      const pa = await (await env.post("pre_arbitration", { per_page: 1000 })).json();
      expect(new Set(pa.content.map((r: { bank_id: string }) => r.bank_id))).toEqual(new Set(["29", "31"]));
    });

    it("answers a page beyond the last with empty content and the same totals", async () => {
      const first = await (await env.post("pre_arbitration", { per_page: 50 })).json();
      const beyond = await (await env.post("pre_arbitration", { per_page: 50, page: first.totalPages + 5 })).json();
      expect(beyond).toEqual({ content: [], totalPages: first.totalPages, totalElements: first.totalElements });
    });

    it("answers 0 pages when nothing matches", async () => {
      expect(await (await env.post("chargeback", { merchant_id: "no-such-merchant" })).json()).toEqual({ content: [], totalPages: 0, totalElements: 0 });
    });
  });

  describe("authentication (401)", () => {
    /** The body without its request id (which names the request, and so differs every time). */
    async function body401(res: Response) {
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const { request_id: requestId, ...rest } = (await res.json()) as { request_id?: string };
      expect(requestId).toBe(res.headers.get("x-request-id"));
      return JSON.stringify(rest);
    }

    it("gives one identical body for every kind of failure", async () => {
      const { shop, password } = CREDENTIALS.wide;
      const url = `${env.server.url}/api/chargeback`;
      const send = (headers: Record<string, string>) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: "{}" });
      const nonce = newNonce();
      const bodies = [
        await body401(await send({})),
        await body401(await send({ "X-Shop-Code": shop, "X-Nonce": nonce })),
        await body401(await send({ ...signedHeaders("no-such-shop", password) })),
        await body401(await send({ ...signedHeaders(shop, "wrong-password") })),
        await body401(await send({ "X-Shop-Code": shop, "X-Nonce": "short", "X-Signature": sign("short", password) })),
        await body401(await send({ "X-Shop-Code": shop, "X-Nonce": "bad nonce with spaces!!", "X-Signature": sign("bad nonce with spaces!!", password) })),
        await body401(await send({ "X-Shop-Code": shop, "X-Nonce": nonce, "X-Signature": sign(nonce, password).toUpperCase() })),
        await body401(await send({ "X-Shop-Code": shop, "X-Nonce": "n".repeat(129), "X-Signature": sign("n".repeat(129), password) })),
      ];
      expect(new Set(bodies).size).toBe(1);
      expect(bodies[0]).not.toMatch(/shop|signature|nonce/i);
    });

    it("accepts nonces of 16 and 128 characters from the allowed alphabet", async () => {
      for (const nonce of ["Aa0._~:-Aa0._~:-", "N".repeat(128)]) {
        expect((await env.post("chargeback", {}, { nonce })).status).toBe(200);
      }
    });

    it("refuses a reused nonce on both endpoints", async () => {
      const nonce = newNonce();
      expect((await env.post("chargeback", {}, { nonce })).status).toBe(200);
      const again = await env.post("chargeback", {}, { nonce });
      const other = await env.post("pre_arbitration", {}, { nonce });
      expect(again.status).toBe(401);
      expect(other.status).toBe(401);
      const fresh = newNonce();
      expect((await env.post("pre_arbitration", {}, { nonce: fresh })).status).toBe(200);
      expect((await env.post("chargeback", {}, { nonce: fresh })).status).toBe(401);
    });

    it("lets another shop use a nonce that one shop used", async () => {
      const nonce = newNonce();
      expect((await env.post("chargeback", {}, { nonce, credential: "wide" })).status).toBe(200);
      expect((await env.post("chargeback", {}, { nonce, credential: "narrow" })).status).toBe(200);
    });

    it("does not spend a nonce on a badly signed request", async () => {
      const nonce = newNonce();
      const bad = await env.post("chargeback", {}, { nonce, headers: { "X-Signature": sign(nonce, "wrong") } });
      expect(bad.status).toBe(401);
      expect((await env.post("chargeback", {}, { nonce })).status).toBe(200);
    });
  });

  describe("scope (403)", () => {
    it("refuses shop_codes outside the access list and never widens the scope", async () => {
      const res = await env.post("chargeback", { shop_codes: ["Zeta", "shop-a"] }, { credential: "narrow" });
      const body = await expectProblem(res, 403);
      expect(body.detail).toContain("shop-a");
      const inScope = await env.post("chargeback", { shop_codes: ["Zeta"] }, { credential: "narrow" });
      expect(inScope.status).toBe(200);
      // Case matters: "zeta" is another shop.
      expect((await env.post("chargeback", { shop_codes: ["zeta"] }, { credential: "narrow" })).status).toBe(403);
    });

    it("checks validity before scope and authentication before validity", async () => {
      await expectProblem(await env.post("chargeback", { shop_codes: ["shop-a"], per_page: 5 }, { credential: "narrow" }), 400);
      const res = await fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"per_page": 5' });
      await expectProblem(res, 401);
    });
  });

  describe("method, media type and size", () => {
    it("answers 405 with Allow: POST to every other method", async () => {
      for (const kind of ["chargeback", "pre_arbitration"] as Kind[]) {
        for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
          const res = await env.post(kind, {}, { method });
          await expectProblem(res, 405);
          expect(res.headers.get("allow")).toBe("POST");
        }
      }
    });

    it("answers 415 to anything but JSON in UTF-8", async () => {
      await expectProblem(await env.post("chargeback", {}, { headers: { "Content-Type": "text/plain" } }), 415);
      await expectProblem(await env.post("chargeback", {}, { headers: { "Content-Type": "application/x-www-form-urlencoded" } }), 415);
      await expectProblem(await env.post("chargeback", {}, { headers: { "Content-Type": "application/json; charset=iso-8859-1" } }), 415);
      expect((await env.post("chargeback", {}, { headers: { "Content-Type": "application/json; charset=UTF-8" } })).status).toBe(200);
      const none = await fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: signedHeaders(CREDENTIALS.wide.shop, CREDENTIALS.wide.password), body: new Uint8Array([123, 125]) });
      await expectProblem(none, 415);
    });

    it("answers 413 to a body over 1 MiB, before authentication", async () => {
      const big = JSON.stringify({ acq_ref_nrs: ["x".repeat(100)], pad: "y".repeat(1024 * 1024) });
      await expectProblem(await env.post("chargeback", undefined, { rawBody: big }), 413);
      const unsigned = await fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json" }, body: big });
      await expectProblem(unsigned, 413);
    });

  });

  describe("dashboard session cookie", () => {
    let cookie: string;
    beforeAll(async () => {
      const { openDatabase } = await import("@/lib/data/connection/db");
      const { createUser } = await import("@/lib/auth/accounts");
      const { createSession, SESSION_COOKIE } = await import("@/lib/auth/sessions");
      process.env.APP_KEY_FILE = env.env.APP_KEY_FILE;
      const db = await openDatabase(env.databaseUrl);
      try {
        await createUser(db.db, { email: "analyst@example.test", password: "user-password", access: ["Zeta"] });
        const user = await db.db.selectFrom("users").select("id").where("email", "=", "analyst@example.test").executeTakeFirstOrThrow();
        const session = await createSession(db.db, Number(user.id));
        cookie = `${SESSION_COOKIE}=${session.token}`;
      } finally {
        await db.close();
      }
    });

    const cookiePost = (headers: Record<string, string>) =>
      fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json", Cookie: cookie, ...headers }, body: "{}" });

    it("serves a same-origin request inside the user's scope", async () => {
      const res = await cookiePost({ Origin: env.server.url });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.totalElements).toBe(env.fixture.records.chargeback.filter((r) => r.__shop === "Zeta").length);
    });

    it("refuses a cookie-authenticated request from another origin", async () => {
      await expectProblem(await cookiePost({ Origin: "https://evil.example" }), 403);
      await expectProblem(await cookiePost({ Origin: "null" }), 403);
      await expectProblem(await cookiePost({ "Sec-Fetch-Site": "cross-site" }), 403);
    });

    it("refuses an unknown session with the common 401", async () => {
      const res = await fetch(`${env.server.url}/api/chargeback`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Cookie: "dr_session=forged", Origin: env.server.url },
        body: "{}",
      });
      expect(res.status).toBe(401);
    });
  });
});

/**
 * A database the server cannot open or reach, of each backend: on SQLite a folder where the
 * database file should be (SQLITE_CANTOPEN), on PostgreSQL a port where nothing listens.
 */
const UNREACHABLE: Record<Backend["name"], () => string> = {
  sqlite: () => {
    const file = path.join(tempDir(), "disputes.sqlite");
    fs.mkdirSync(file);
    return `file:${file}`;
  },
  postgres: () => "postgres://nobody:secret@127.0.0.1:9/none",
};

describe.each(backends)("rate limit, outage and the OpenAPI document on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await setupApiEnv(backend, { RATE_LIMIT_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  it("answers 429 with Retry-After once a credential exceeds its limit, other credentials unaffected", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await env.post("chargeback", {})).status);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    const limited = await env.post("chargeback", {});
    await expectProblem(limited, 429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await env.post("chargeback", {}, { credential: "narrow" })).status).toBe(200);
  });

  it("serves the OpenAPI 3.1 document without authentication, matching the validation", async () => {
    const res = await fetch(`${env.server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    const cb = doc.paths["/api/chargeback"].post;
    const pa = doc.paths["/api/pre_arbitration"].post;
    expect(Object.keys(cb.responses).sort()).toEqual(["200", "400", "401", "403", "405", "413", "415", "429", "500", "503"]);
    const search = doc.components.schemas.ChargebackSearch;
    expect(search.additionalProperties).toBe(false);
    expect(Object.keys(search.properties).sort()).toEqual(
      ["acq_ref_nrs", "file_date_from", "file_date_to", "merchant_id", "page", "parent_merchant_id", "payment_order_nrs", "per_page", "shop_codes", "sortKey", "sortOrder", "transaction_ids"].sort(),
    );
    const paSearch = doc.components.schemas.PreArbitrationSearch;
    const sortKeys = paSearch.properties.sortKey.anyOf.find((s: { enum?: string[] }) => s.enum).enum;
    expect(sortKeys).not.toContain("FILE_DATE");
    expect(Object.keys(doc.components.schemas.Chargeback.properties).sort()).toEqual(CHARGEBACK_KEYS);
    expect(Object.keys(doc.components.schemas.PreArbitration.properties).sort()).toEqual(PRE_ARBITRATION_KEYS);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(["ShopCode", "Nonce", "Signature"]));
    expect(pa.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/PreArbitrationSearch");
  });

  // Last on purpose: the refused upload leaves the client's pooled connection reset.
  it("measures a streamed body without Content-Length while reading it", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${env.server.url}/api/chargeback`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders(CREDENTIALS.wide.shop, CREDENTIALS.wide.password) },
      body: stream,
      duplex: "half",
    } as RequestInit);
    await expectProblem(res, 413);
  });

  it("answers 500 without a stack trace, SQL or a path when a query fails unexpectedly", async () => {
    // A database of its own (a fresh file, or a fresh PostgreSQL database), which this test breaks.
    const broken = await setupApiEnv(backend);
    try {
      const { openDatabase } = await import("@/lib/data/connection/db");
      const db = await openDatabase(broken.databaseUrl);
      // A table the search reads vanishes under the running server (on PostgreSQL: 42P01).
      await db.db.schema.dropTable("chargebacks").execute();
      await db.close();
      const res = await broken.post("chargeback", {});
      const body = await expectProblem(res, 500);
      expect(JSON.stringify(body)).not.toMatch(/chargebacks|relation|select|sqlite|postgres|42P01|\/work|node_modules|at \S+ \(/i);
      // An unexpected failure is not an outage: the server stays ready.
      expect((await fetch(`${broken.server.url}/api/health`)).status).toBe(200);
    } finally {
      await broken.server.stop();
    }
  });

  it("answers 503 with Retry-After when the database is unreachable, without internals", async () => {
    const server = await startServer({ DATABASE_URL: UNREACHABLE[backend.name](), RATE_LIMIT_PER_MINUTE: "0" }, { waitForHealth: false });
    try {
      const res = await fetch(`${server.url}/api/chargeback`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...signedHeaders("shop-a", "whatever-password") },
        body: "{}",
      });
      const body = await expectProblem(res, 503);
      expect(res.headers.get("retry-after")).toBeTruthy();
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|CANTOPEN|127\.0\.0\.1|postgres|sqlite|\/tmp|at .*\.js/i);
      expect((await fetch(`${server.url}/api/health`)).status).toBe(503);
    } finally {
      await server.stop();
    }
  });
});
