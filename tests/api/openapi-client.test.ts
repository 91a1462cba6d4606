import fs from "node:fs";
import path from "node:path";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components, paths } from "@/lib/openapi/client-types";
import { CLIENT_TYPES_FILE, clientTypes } from "../../scripts/openapi-types";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { CREDENTIALS, modelSearch, publicRecord } from "./fixture";
import { type ApiEnv, sharedApiEnv, signedHeaders } from "./harness";

/**
 * A client generated from the document the server serves (openapi-typescript's types, kept in
 * lib/openapi/client-types.d.ts, and openapi-fetch) calls the real server as any integrator's would:
 * a signed search (docs/api.md, "Authentication") and a refused one, against `next start`.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

describe.each(backends)("a client generated from /api/openapi.json on $name", (backend) => {
  let env: ApiEnv;
  let document: { servers: { url: string }[] };
  beforeAll(async () => {
    env = await sharedApiEnv(backend);
    const res = await fetch(`${env.server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    document = await res.json();
  });
  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  /** The client, at the document's own server ("/", so the host that served it). */
  const client = () => createClient<paths>({ baseUrl: new URL(document.servers[0].url, env.server.url).href.replace(/\/$/, "") });

  it("is the one kept in lib/openapi/client-types.d.ts: the served document generates the same types", async () => {
    expect(await clientTypes(document)).toBe(fs.readFileSync(path.join(ROOT, CLIENT_TYPES_FILE), "utf8"));
  });

  it("makes a signed search and reads the page", async () => {
    const cred = CREDENTIALS.narrow;
    const body: components["schemas"]["ChargebackSearch"] = { shop_codes: ["Zeta"], sortKey: "FILE_DATE", sortOrder: "desc", per_page: 10, page: 1 };
    const { data, error, response } = await client().POST("/api/chargeback", { body, headers: signedHeaders(cred.shop, cred.password) });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    const expected = modelSearch(env.fixture.records.chargeback, body, cred.access);
    expect(expected.totalElements).toBeGreaterThan(10);
    expect(data).toEqual({ ...expected, content: expected.content.map((r) => publicRecord(r, "chargeback")) });
  });

  it("reads a refusal as the document's problem", async () => {
    const cred = CREDENTIALS.narrow;
    const headers = { ...signedHeaders(cred.shop, cred.password), "X-Signature": "0".repeat(64) };
    const { data, error, response } = await client().POST("/api/pre_arbitration", { body: {}, headers });
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Signature realm="api"');
    expect(error).toMatchObject({ type: "/docs#error-401", title: "Authentication failed", status: 401, detail: "missing or invalid credentials" });
  });
});
