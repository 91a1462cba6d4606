import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { CLOCK_SLACK_MS, LEASE_SECONDS, POLL_SLACK_MS, SLOW_MS, until, must, WebhookWorld, writeFile } from "../helpers/webhooks";

/**
 * A server that stops in the middle of a webhook attempt (docs/api.md, "Webhooks", at least once): on SIGTERM
 * it lets the attempt finish and records it; killed, its claim's lease (WEBHOOK_LEASE_SECONDS,
 * short here) expires and another server sends the event again, as the next attempt. Beside
 * webhooks.test.ts so that the two wait in parallel.
 */

afterAll(dropCreatedDatabases);

describe.each(backends)("webhooks on $name, a server killed mid-attempt", (backend) => {
  const world = new WebhookWorld();
  const { receiver } = world;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    await world.setUp(backend, { crash: "crash", slow: "slow" });
    await world.addEndpoint("crash", "/crash", "hang-once");
    await world.addEndpoint("slow", "/slow", "slow");
    servers.push(await startServer(world.env));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await world.tearDown();
  });

  it("on SIGTERM a server lets the webhook attempt in flight finish, records it, and exits 0", async () => {
    must(await world.importFiles(writeFile("CHB_20260308.csv", "chargeback", { slow: 1 })), "import");
    await until("the attempt at /slow", () => receiver.at("/slow").length >= 1);
    const server = servers.pop()!;
    const signalled = Date.now();
    await server.stop();
    expect(server.exitCode()).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(SLOW_MS - 1_000);
    expect((await world.deliveries("/slow")).map((d) => d.state)).toEqual(["delivered"]);
    const [attempt] = await world.attempts("/slow");
    expect([Number(attempt.attempt), Number(attempt.status)]).toEqual([1, 200]);
    expect(Number(attempt.duration_ms)).toBeGreaterThanOrEqual(SLOW_MS - CLOCK_SLACK_MS);
    const log = server.output();
    // The server's log goes with a failure: the order of its lines is the point.
    expect(log.indexOf('"msg":"webhook attempt"'), log).toBeGreaterThan(log.indexOf("shutting down"));
    expect(log.indexOf('"msg":"stopped"'), log).toBeGreaterThan(log.indexOf('"msg":"webhook attempt"'));
    servers.push(await startServer(world.env));
  });

  it("a server killed in the middle of an attempt leaves a lease that expires: another server sends the event again", async () => {
    must(await world.importFiles(writeFile("CHB_20260307.csv", "chargeback", { crash: 2 })), "import");
    const [first] = await until("the first attempt at /crash", () => (receiver.at("/crash").length >= 1 ? receiver.at("/crash") : undefined));
    const victim = servers.pop()!;
    process.kill(victim.pid, "SIGKILL");
    await victim.exited;
    servers.push(await startServer(world.env));
    const ready = Date.now();
    const hits = await until("the attempt after the lease", () => (receiver.at("/crash").length >= 2 ? receiver.at("/crash") : undefined), LEASE_SECONDS * 1000 + 10_000);
    expect(hits[1].event.id).toBe(first.event.id);
    expect(hits[1].signed).toBe(true);
    // Never before the lease (WEBHOOK_LEASE_SECONDS from the claim) has run out; at the first poll
    // after it, or after the new server's start when that took longer.
    const lease = LEASE_SECONDS * 1000;
    expect(hits[1].at - first.at).toBeGreaterThanOrEqual(lease - CLOCK_SLACK_MS);
    expect(hits[1].at - Math.max(first.at + lease, ready)).toBeLessThan(POLL_SLACK_MS + 500);
    await until("the delivery recorded", async () => (await world.deliveries("/crash"))[0]?.state === "delivered");
    // The lost attempt is a gap in the numbers, never a second attempt 1.
    expect((await world.attempts("/crash")).map((a) => [Number(a.attempt), Number(a.status)])).toEqual([[2, 200]]);
    expect(receiver.at("/crash")).toHaveLength(2);
  });
});
