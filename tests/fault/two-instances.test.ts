import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS } from "../api/fixture";
import { type ApiEnv, newNonce, setupApiEnv, signedHeaders } from "../api/harness";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Two production servers on one database (PostgreSQL, as a deployment of several instances runs;
 * and two processes on one SQLite file): a nonce spent on one is refused by the other, and the
 * per-credential rate limit holds across both, because both live in the database.
 */

afterAll(dropCreatedDatabases);

describe.each(backends)("two server instances on one $name database", (backend) => {
  let env: ApiEnv;
  let second: TestServer;
  const LIMIT = 6;
  beforeAll(async () => {
    env = await setupApiEnv(backend, { RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    second = await startServer(env.env);
  });
  afterAll(async () => {
    await Promise.all([env?.server.stop(), second?.stop()]);
  });

  const post = (server: TestServer, headers: Record<string, string>) =>
    fetch(`${server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: "{}" });

  it("refuses on one instance a nonce spent on the other", async () => {
    const { shop, password } = CREDENTIALS.narrow;
    const nonce = newNonce();
    expect((await post(env.server, signedHeaders(shop, password, nonce))).status).toBe(200);
    expect((await post(second, signedHeaders(shop, password, nonce))).status).toBe(401);
    const other = newNonce();
    expect((await post(second, signedHeaders(shop, password, other))).status).toBe(200);
    expect((await post(env.server, signedHeaders(shop, password, other))).status).toBe(401);
  });

  it("holds the rate limit across both: the limit in total, not per instance", async () => {
    const { shop, password } = CREDENTIALS.wide;
    const statuses: number[] = [];
    // Alternating between the instances, twice the limit in a burst: exactly the limit passes.
    for (let i = 0; i < 2 * LIMIT; i++) statuses.push((await post(i % 2 === 0 ? env.server : second, signedHeaders(shop, password))).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(LIMIT);
    expect(statuses.slice(0, LIMIT).every((s) => s === 200)).toBe(true);
    // Concurrent requests on both instances at once cannot take more than there is either.
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 === 0 ? env.server : second, signedHeaders(shop, password))));
    const refused = burst.filter((r) => r.status === 429);
    // The bucket refills at LIMIT a minute: in the second or so since, at most one token came back.
    expect(refused.length).toBeGreaterThanOrEqual(7);
    for (const r of refused) expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
