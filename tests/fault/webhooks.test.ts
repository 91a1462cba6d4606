import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { CLOCK_SLACK_MS, type Hit, POLL_SLACK_MS, RETRY, sleep, TIMEOUT_MS, until, must, WebhookWorld, writeFile } from "../helpers/webhooks";

/**
 * Webhooks (docs/api.md, "Webhooks") end to end, on every backend: endpoints made with the real admin command,
 * files loaded with the real import command, production servers (`npm start`'s process) sending,
 * and a real HTTP receiver on loopback that checks every signature the way the receiver example in docs/api.md
 * does (tests/helpers/webhooks.ts). WEBHOOK_RETRY_SECONDS is 1,2: three attempts, one and two
 * seconds apart. A server that dies mid-attempt: webhooks-crash.test.ts.
 */

afterAll(dropCreatedDatabases);

describe.each(backends)("webhooks on $name", (backend) => {
  const world = new WebhookWorld();
  const { ids, receiver } = world;
  const servers: TestServer[] = [];
  let importedAt = 0;
  const admin = (args: string[]) => world.admin(args);
  const importFiles = (...paths: string[]) => world.importFiles(...paths);
  const addEndpoint = world.addEndpoint.bind(world);
  const deliveries = world.deliveries.bind(world);
  const attempts = world.attempts.bind(world);
  const db = () => world.db;

  async function listed(): Promise<Map<string, string[]>> {
    const out = must(await admin(["webhook", "list"]), "webhook list").stdout.trimEnd().split("\n");
    expect(out[0]).toMatch(/^ID\s+SHOP\s+URL\s+STATE\s+LAST DELIVERY\s+FAILURES IN A ROW/);
    return new Map(out.slice(1).map((line) => line.split(/ {2,}/)).map((cells) => [cells[0], cells]));
  }

  beforeAll(async () => {
    await world.setUp(backend, { wide: "wide,b", "solo-c": "solo-c", none: "none", gone: "gone,b", flaky: "flaky", hang: "hang", dead: "dead" });
    await Promise.all([
      addEndpoint("wide", "/wide"),
      addEndpoint("wide", "/wide2"),
      addEndpoint("solo-c", "/c"),
      addEndpoint("none", "/none"),
      addEndpoint("gone", "/gone"),
      addEndpoint("flaky", "/flaky", "fail-once"),
      addEndpoint("hang", "/hang", "hang-once"),
      addEndpoint("dead", "/dead", "always-500"),
    ]);
    must(await admin(["webhook", "remove", ids["/gone"]]), "webhook remove");
    servers.push(await startServer(world.env));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await world.tearDown();
  });

  it("refuses a URL that is not http(s) and an unknown shop; never lists a secret", async () => {
    const cases = [
      [["webhook", "add", "wide", "ftp://example.com/hook"], /http:\/\/ or https:\/\//],
      [["webhook", "add", "wide", "not a url"], /http:\/\/ or https:\/\//],
      [["webhook", "add", "nobody", "https://example.com/hook"], /no shop credential nobody/],
      [["webhook", "remove", "we_0000000000000000dead"], /no webhook endpoint/],
    ] as const;
    const [rows, ...results] = await Promise.all([listed(), ...cases.map(([args]) => admin([...args]))]);
    results.forEach((result, i) => {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(cases[i][1]);
    });
    expect([...rows.values()].flat().join(" ")).not.toMatch(/whsec_|v1:/);
    expect(rows.get(ids["/gone"])?.[3]).toMatch(/^removed /);
  });

  it("a refused import sends nothing; a committed file sends one signed event per endpoint, for its scope only", async () => {
    const refused = await importFiles(writeFile("CHB_20260302.csv", "chargeback", { wide: 2, "solo-c": 1 }, true));
    expect(refused.code).toBe(1);
    importedAt = Date.now();
    must(
      await importFiles(
        writeFile("CHB_20260301.csv", "chargeback", { wide: 2, b: 1, "solo-c": 3, stranger: 4, gone: 1, flaky: 1, hang: 1, dead: 1 }),
        writeFile("PREARB_29_20260301.csv", "pre_arbitration", { b: 2, stranger: 1 }),
      ),
      "import",
    );
    // The slow endpoint (/hang holds its request past the attempt's time limit) delays none of the others.
    await until("the events of /wide, /wide2 and /c", () => receiver.at("/wide").length >= 2 && receiver.at("/wide2").length >= 2 && receiver.at("/c").length >= 1, 5_000);
    for (const route of ["/wide", "/wide2"]) {
      const hits = receiver.at(route);
      expect(hits.map((h) => h.event.type).sort()).toEqual(["chargebacks.imported", "pre_arbitrations.imported"]);
      const chb = hits.find((h) => h.event.type === "chargebacks.imported")!;
      expect(chb.event.data).toEqual({ file_date: "2026-03-01", shop_codes: ["b", "wide"], count: 3 });
      const pa = hits.find((h) => h.event.type === "pre_arbitrations.imported")!;
      expect(pa.event.data).toEqual({ file_date: "2026-03-01", shop_codes: ["b"], count: 2 });
    }
    const [c] = receiver.at("/c");
    expect(c.event.data).toEqual({ file_date: "2026-03-01", shop_codes: ["solo-c"], count: 3 });
    for (const hit of receiver.hits) {
      expect(hit.signed).toBe(true);
      expect(hit.contentType).toBe("application/json");
      expect(Object.keys(hit.event)).toEqual(["id", "type", "created", "data"]);
      expect(hit.event.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(Math.abs(hit.event.created - importedAt / 1000)).toBeLessThan(30);
      // The stored body is the one sent, byte for byte.
      const stored = await db().db.selectFrom("webhook_deliveries").select("body").where("event_id", "=", hit.event.id).executeTakeFirstOrThrow();
      expect(stored.body).toBe(hit.body);
    }
    // One event per endpoint and file: ids differ between endpoints of the same shop too.
    const firstHits = new Set(receiver.hits.filter((h) => h.path !== "/flaky" && h.path !== "/dead").map((h) => h.event.id));
    expect(firstHits.size).toBe(receiver.hits.filter((h) => h.path !== "/flaky" && h.path !== "/dead").length);
    // Nothing for a shop without records in the file, nor for a removed endpoint, nor of the refused file.
    await sleep(1_500);
    expect(receiver.at("/none")).toEqual([]);
    expect(receiver.at("/gone")).toEqual([]);
    expect(await deliveries("/none")).toEqual([]);
    expect(await deliveries("/gone")).toEqual([]);
    expect(receiver.hits.filter((h) => h.event.data.file_date === "2026-03-02")).toEqual([]);
    expect((await db().db.selectFrom("webhook_deliveries").select("body").execute()).filter((d) => d.body.includes("2026-03-02"))).toEqual([]);
    expect(receiver.at("/wide")).toHaveLength(2);
    expect(receiver.at("/c")).toHaveLength(1);
  });

  it("sends again on the configured schedule after a 500", async () => {
    const hits = await until("two attempts at /flaky", () => (receiver.at("/flaky").length >= 2 ? receiver.at("/flaky") : undefined));
    expect(hits[1].event.id).toBe(hits[0].event.id);
    expect(hits[1].body).toBe(hits[0].body);
    const gap = hits[1].at - hits[0].at;
    expect(gap).toBeGreaterThanOrEqual(RETRY[0] * 1000 - CLOCK_SLACK_MS);
    expect(gap).toBeLessThan(RETRY[0] * 1000 + POLL_SLACK_MS);
    await until("the delivery recorded", async () => (await deliveries("/flaky"))[0]?.state === "delivered");
    expect((await attempts("/flaky")).map((a) => [Number(a.attempt), a.status === null ? null : Number(a.status)])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    await sleep(RETRY[1] * 1000 + POLL_SLACK_MS);
    expect(receiver.at("/flaky")).toHaveLength(2);
  });

  it("gives up after the last delay and shows it in webhook list with the failures in a row", async () => {
    await until("the /dead delivery failed", async () => (await deliveries("/dead"))[0]?.state === "failed");
    const hits = receiver.at("/dead");
    expect(hits).toHaveLength(RETRY.length + 1);
    expect(new Set(hits.map((h) => h.event.id)).size).toBe(1);
    expect(hits[1].at - hits[0].at).toBeGreaterThanOrEqual(RETRY[0] * 1000 - CLOCK_SLACK_MS);
    expect(hits[2].at - hits[1].at).toBeGreaterThanOrEqual(RETRY[1] * 1000 - CLOCK_SLACK_MS);
    expect(hits[2].at - hits[1].at).toBeLessThan(RETRY[1] * 1000 + POLL_SLACK_MS);
    const rows = await listed();
    const [, shop, url, state, last, failuresInRow, pending, failed] = rows.get(ids["/dead"])!;
    expect([shop, url, state]).toEqual(["dead", `${receiver.url}/dead`, "active"]);
    expect(last).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ failed \(500\)$/);
    expect([failuresInRow, pending, failed]).toEqual(["3", "0", "1"]);
    const wide = rows.get(ids["/wide"])!;
    expect(wide[4]).toMatch(/delivered \(200\)$/);
    expect(wide.slice(5)).toEqual(["0", "0", "0"]);
    expect(rows.get(ids["/none"])![4]).toBe("never");
  });

  it("times out a receiver that never answers and sends the event again", async () => {
    const hits = await until("two attempts at /hang", () => (receiver.at("/hang").length >= 2 ? receiver.at("/hang") : undefined), TIMEOUT_MS + 10_000);
    expect(hits[1].event.id).toBe(hits[0].event.id);
    const gap = hits[1].at - hits[0].at;
    expect(gap).toBeGreaterThanOrEqual(TIMEOUT_MS + RETRY[0] * 1000 - CLOCK_SLACK_MS);
    expect(gap).toBeLessThan(TIMEOUT_MS + RETRY[0] * 1000 + POLL_SLACK_MS + 500);
    await until("the delivery recorded", async () => (await deliveries("/hang"))[0]?.state === "delivered");
    const [first, second] = await attempts("/hang");
    expect(first.status).toBeNull();
    expect(first.error).toBe(`no answer within ${TIMEOUT_MS / 1000} s`);
    expect(Number(first.duration_ms)).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(Number(first.duration_ms)).toBeLessThan(TIMEOUT_MS + 1000);
    expect(Number(second.status)).toBe(200);
  });

  it("sends after a restart the events stored while no server ran", async () => {
    const first = servers.shift()!;
    await first.stop();
    expect(first.exitCode()).toBe(0);
    must(await importFiles(writeFile("CHB_20260303.csv", "chargeback", { b: 1 })), "import while stopped");
    await sleep(1_200);
    expect(receiver.hits.filter((h) => h.event.data.file_date === "2026-03-03")).toEqual([]);
    expect((await deliveries("/wide")).filter((d) => d.state === "pending")).toHaveLength(1);
    servers.push(await startServer(world.env));
    await until("the stored events after the restart", () => receiver.hits.filter((h) => h.event.data.file_date === "2026-03-03").length >= 2);
    const sent = receiver.hits.filter((h) => h.event.data.file_date === "2026-03-03");
    expect(sent.map((h) => h.path).sort()).toEqual(["/wide", "/wide2"]);
    for (const hit of sent) expect(hit.event.data).toEqual({ file_date: "2026-03-03", shop_codes: ["b"], count: 1 });
  });

  it("two servers on one database send each attempt once", async () => {
    servers.push(await startServer(world.env));
    const many = Array.from({ length: 6 }, (_, i) => `/many-${i}`);
    // Each answers 500 the first time it sees an event: every event takes two attempts.
    await Promise.all(many.map((route) => addEndpoint("wide", route, "fail-once")));
    const dates = ["20260304", "20260305", "20260306"];
    must(await importFiles(...dates.map((d) => writeFile(`CHB_${d}.csv`, "chargeback", { wide: 1 }))), "import");
    const expected = many.length * dates.length * 2 + 2 * dates.length;
    const isNew = (h: Hit) => h.event.data.file_date >= "2026-03-04";
    await until("every attempt", () => receiver.hits.filter(isNew).length >= expected, 20_000);
    // A second send of an attempt would come from a second claim, at the next polls.
    await sleep(POLL_SLACK_MS);
    const sent = receiver.hits.filter(isNew);
    expect(sent).toHaveLength(expected);
    for (const route of many) {
      const byEvent = new Map<string, number>();
      for (const hit of receiver.at(route)) byEvent.set(hit.event.id, (byEvent.get(hit.event.id) ?? 0) + 1);
      expect([...byEvent.values()]).toEqual([2, 2, 2]);
    }
    for (const route of ["/wide", "/wide2"]) expect(receiver.at(route).filter(isNew)).toHaveLength(dates.length);
    for (const route of many) {
      expect((await deliveries(route)).map((d) => d.state)).toEqual(["delivered", "delivered", "delivered"]);
      expect(await attempts(route)).toHaveLength(dates.length * 2);
    }
    // Every attempt is in one of the two servers' logs.
    const perServer = servers.map((s) => (s.output().match(/"msg":"webhook attempt"/g) ?? []).length);
    expect(perServer.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(expected);
  });
});
