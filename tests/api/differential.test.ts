import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, dropCreatedDatabases } from "../helpers/db";
import {
  ACQ_REFS,
  CREDENTIALS,
  FILE_DATES,
  type Kind,
  MERCHANTS,
  type ModelRequest,
  modelSearch,
  ORDERS,
  PARENTS,
  prng,
  publicRecord,
  SHOPS,
  TRANSACTION_IDS,
} from "./fixture";
import { type ApiEnv, sharedApiEnv } from "./harness";

/**
 * Hundreds of generated requests, each answered by the running server and by the model of
 * docs/api.md, "Selection and order" in fixture.ts; the two must agree record for record.
 */

const SORT_KEYS: Record<Kind, string[]> = {
  chargeback: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR", "FILE_DATE"],
  pre_arbitration: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR"],
};

function randomRequest(r: ReturnType<typeof prng>, kind: Kind, access: readonly string[], total: number): ModelRequest {
  const req: ModelRequest = {};
  const dates = [...FILE_DATES[kind], "2025-12-31", "2026-02-10", "2026-04-01"].sort();
  if (r.chance(0.25)) req.file_date_from = r.pick(dates);
  if (r.chance(0.25)) req.file_date_to = r.pick(dates.filter((d) => !req.file_date_from || d >= req.file_date_from));
  if (r.chance(0.25)) req.shop_codes = r.subset(access, 4);
  if (r.chance(0.15)) req.merchant_id = r.pick([...MERCHANTS, "M999"]);
  if (kind === "chargeback" && r.chance(0.15)) req.parent_merchant_id = r.pick([...PARENTS, "P9"]);
  if (r.chance(0.15)) req.acq_ref_nrs = r.subset([...ACQ_REFS, "nope"], 15);
  if (kind === "chargeback" && r.chance(0.15)) req.transaction_ids = r.subset([...TRANSACTION_IDS, "T404"], 3);
  if (kind === "pre_arbitration" && r.chance(0.15)) req.payment_ids = r.subset(["PAY-shared", "PA-1", "PA-7", "PA-60", "PA-999"], 3);
  if (r.chance(0.2)) req.payment_order_nrs = r.subset([...ORDERS, "none"], 4);
  // Null and empty arrays mean "no filter".
  if (r.chance(0.1)) req.merchant_id = null;
  if (r.chance(0.1)) req.acq_ref_nrs = [];
  req.per_page = r.pick([10, 10, 11, 25, 37, 100, 1000, r.int(10, 1000)]);
  const pages = Math.max(1, Math.ceil(total / req.per_page));
  req.page = r.chance(0.1) ? pages + r.int(0, 3) : r.chance(0.6) ? 0 : r.int(0, Math.min(pages, 3));
  if (req.page === 0 && r.chance(0.3)) delete req.page;
  if (r.chance(0.9)) req.sortKey = r.pick(SORT_KEYS[kind]);
  if (r.chance(0.8)) req.sortOrder = r.pick(["asc", "desc"] as const);
  return req;
}

describe.each(backends)("differential test against the model of the selection and order rules on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await sharedApiEnv(backend);
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    it(`agrees with the model on 200 random ${kind} requests`, async () => {
      const r = prng(kind === "chargeback" ? 1234 : 5678);
      let nonEmpty = 0;
      for (let i = 0; i < 200; i++) {
        const credential = r.pick(["wide", "wide", "narrow", "self"] as const);
        const access = CREDENTIALS[credential].access;
        const req = randomRequest(r, kind, access, env.fixture.records[kind].length);
        const res = await env.post(kind, req, { credential });
        const text = await res.text();
        expect(res.status, `${JSON.stringify(req)} -> ${text}`).toBe(200);
        const got = JSON.parse(text);
        const want = modelSearch(env.fixture.records[kind], req, access);
        expect(got.totalElements, JSON.stringify(req)).toBe(want.totalElements);
        expect(got.totalPages, JSON.stringify(req)).toBe(want.totalPages);
        expect(got.content, JSON.stringify(req)).toEqual(want.content.map((rec) => publicRecord(rec, kind)));
        if (got.content.length) nonEmpty++;
      }
      // A generator that only produced empty pages would prove nothing.
      expect(nonEmpty).toBeGreaterThan(80);
    });

    it(`pages through every ${kind} sort order returning each record exactly once`, async () => {
      const all = env.fixture.records[kind].map((rec) => rec.payment_id);
      for (const sortKey of SORT_KEYS[kind]) {
        for (const sortOrder of ["asc", "desc"] as const) {
          const seen: unknown[] = [];
          for (let page = 0; ; page++) {
            const res = await env.post(kind, { sortKey, sortOrder, page, per_page: 17 });
            const body = await res.json();
            expect(body.totalElements).toBe(all.length);
            if (body.content.length === 0) break;
            seen.push(...body.content.map((rec: { payment_id: string; acq_ref_nr: string; file_date: string }) => JSON.stringify(rec)));
          }
          expect(seen.length).toBe(all.length);
          expect(new Set(seen).size).toBe(all.length);
        }
      }
    });
  }

  it("sees nothing outside the credential's scope, whatever the filters", async () => {
    const res = await env.post("chargeback", { per_page: 1000, merchant_id: "M001" }, { credential: "self" });
    const body = await res.json();
    const expected = env.fixture.records.chargeback.filter((rec) => rec.__shop === "zz" && rec.merchant_id === "M001");
    expect(body.totalElements).toBe(expected.length);
    expect(body.content.map((c: { payment_id: string }) => c.payment_id)).toEqual(expected.map((rec) => rec.payment_id));
  });

  it("orders shop codes bytewise, not by locale", async () => {
    const res = await env.post("chargeback", { sortKey: "SHOP_CODE", per_page: 1000 });
    const body = await res.json();
    const shopOf = new Map(env.fixture.records.chargeback.map((rec) => [rec.payment_id, rec.__shop]));
    const order = [...new Set(body.content.map((c: { payment_id: string }) => shopOf.get(c.payment_id)))];
    expect(order).toEqual([...new Set(SHOPS)].filter((s) => order.includes(s)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(order[0]).toBe("SHOP-B");
    expect(order.at(-1)).toBe("Älpha");
  });
});
