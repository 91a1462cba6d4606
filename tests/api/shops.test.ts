import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, signIn } from "../helpers/accounts";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { compareBytes, CREDENTIALS, type Kind, type ModelRecord } from "./fixture";
import { type ApiEnv, sharedApiEnv, signedHeaders } from "./harness";

/**
 * POST /api/shops (an extension, docs/api.md, "Shop directory") against `next start` on each
 * backend: each caller gets exactly its access list, in bytewise order, each shop with the
 * merchant of its last record in its latest file of either kind and the parent of its last
 * record in its latest chargeback file, worked out here from the fixture's records and the order
 * its files were imported in.
 */

interface Entry {
  shop_code: string;
  merchant_id: string | null;
  merchant_name: string | null;
  parent_merchant_id: string | null;
  parent_merchant_name: string | null;
}

function modelDirectory(files: readonly string[], records: Record<Kind, ModelRecord[]>, access: readonly string[]): Entry[] {
  const order = (kind: Kind, rec: ModelRecord) => {
    const ymd = String(rec.file_date).replaceAll("-", "");
    const name = kind === "chargeback" ? `CHB_${ymd}.csv` : `PREARB_${rec.bank_id}_${ymd}.csv`;
    const index = files.findIndex((f) => path.basename(f) === name);
    if (index < 0) throw new Error(`no fixture file ${name}`);
    return index;
  };
  // (file date, import order, id within the kind): the greatest is the latest file's last row.
  const later = (a: [string, number, number], b: [string, number, number]) => a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];
  const merchant = new Map<string, { at: [string, number, number]; rec: ModelRecord }>();
  const parent = new Map<string, { at: [string, number, number]; rec: ModelRecord }>();
  for (const kind of ["chargeback", "pre_arbitration"] as const) {
    for (const rec of records[kind]) {
      const at: [string, number, number] = [String(rec.file_date), order(kind, rec), rec.__id];
      const m = merchant.get(rec.__shop);
      if (!m || later(at, m.at)) merchant.set(rec.__shop, { at, rec });
      const p = parent.get(rec.__shop);
      if (kind === "chargeback" && (!p || later(at, p.at))) parent.set(rec.__shop, { at, rec });
    }
  }
  return [...new Set(access)].sort(compareBytes).map((shop) => {
    const m = merchant.get(shop)?.rec;
    const p = parent.get(shop)?.rec;
    return {
      shop_code: shop,
      merchant_id: (m?.merchant_id as string | undefined) ?? null,
      merchant_name: (m?.merchant_name as string | null | undefined) ?? null,
      parent_merchant_id: (p?.parent_mrch_id as string | null | undefined) ?? null,
      parent_merchant_name: (p?.parent_mrch_name as string | null | undefined) ?? null,
    };
  });
}

describe.each(backends)("shop directory (extension) on $name", (backend) => {
  let env: ApiEnv;
  let cookie: string;
  const USER = { email: "directory@example.test", password: "directory-password", access: ["Zeta", "ghost-shop", "alpha"] };

  const post = (body: unknown, headers: Record<string, string>, method = "POST") =>
    fetch(`${env.server.url}/api/shops`, {
      method,
      headers: { "Content-Type": "application/json", ...headers },
      body: method === "GET" || method === "HEAD" ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  const signed = (credential: keyof typeof CREDENTIALS) => signedHeaders(CREDENTIALS[credential].shop, CREDENTIALS[credential].password);

  beforeAll(async () => {
    env = await sharedApiEnv(backend);
    await addUser(env.env, USER.email, USER.password, USER.access);
    cookie = await signIn(env.server.url, USER.email, USER.password);
  });

  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  it("answers each shop credential exactly its access list, with the merchants of the model", async () => {
    for (const credential of Object.keys(CREDENTIALS) as (keyof typeof CREDENTIALS)[]) {
      const res = await post({}, signed(credential));
      expect(res.status, credential).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = await res.json();
      expect(Object.keys(body)).toEqual(["shops"]);
      expect(body.shops, credential).toEqual(modelDirectory(env.fixture.files, env.fixture.records, CREDENTIALS[credential].access));
    }
    const wide = modelDirectory(env.fixture.files, env.fixture.records, CREDENTIALS.wide.access);
    // The fixture gives the model something to decide: every shop has a merchant, and parents differ.
    expect(wide.every((e) => e.merchant_id !== null)).toBe(true);
    expect(new Set(wide.map((e) => e.parent_merchant_id)).size).toBeGreaterThan(1);
  });

  it("serves a signed-in user's list, a shop without records with nulls, an empty body as {}", async () => {
    const res = await post("", { Cookie: cookie, Origin: env.server.url });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.shops).toEqual(modelDirectory(env.fixture.files, env.fixture.records, USER.access));
    expect(body.shops.map((e: Entry) => e.shop_code)).toEqual(["Zeta", "alpha", "ghost-shop"]);
    expect(body.shops[2]).toEqual({ shop_code: "ghost-shop", merchant_id: null, merchant_name: null, parent_merchant_id: null, parent_merchant_name: null });
  });

  it("refuses unknown fields, a body that is no object, GET, unsigned and cross-origin requests", async () => {
    const unknown = await post({ shop_codes: ["Zeta"] }, signed("narrow"));
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("content-type")).toBe("application/problem+json");
    expect((await unknown.json()).errors).toEqual([{ field: "shop_codes", message: "is not a field of this request" }]);
    expect((await post([], signed("narrow"))).status).toBe(400);
    expect((await post(null, signed("narrow"))).status).toBe(400);

    const get = await post(undefined, signed("narrow"), "GET");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");

    const unsigned = await post({}, {});
    expect(unsigned.status).toBe(401);
    const crossOrigin = await post({}, { Cookie: cookie, Origin: "http://evil.example" });
    expect(crossOrigin.status).toBe(403);
    expect((await post({}, signed("narrow"), "POST")).status).toBe(200);
    const json = await post({}, { ...signed("narrow"), "Content-Type": "text/plain" });
    expect(json.status).toBe(415);
  });
});
