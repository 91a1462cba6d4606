import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/accounts";
import type { Db } from "@/lib/data/connection/db";
import { changeMailSettings, mailUserByEmail } from "@/lib/mail/settings";
import { parseMailSettingsPatch } from "@/lib/schemas/mail-settings";
import { type Backend, backends, dropCreatedDatabases } from "../helpers/db";
import { createPrivateCluster, createStandby, PG_BIN, type PrivateCluster, type Standby } from "../../scripts/pg-cluster";
import { startServer, type TestServer } from "../helpers/server";
import { MailCatcher } from "../helpers/smtp";
import { must, sleep, until, WebhookWorld, writeFile } from "../helpers/webhooks";

/**
 * Work the webhook and mail dispatchers claimed is never stranded (docs/architecture.md,
 * "Background work"), against production servers (`npm start`'s process), a real HTTP receiver
 * and a real SMTP server on loopback:
 *
 * - an outcome the database refuses to record does not hold up the claims after it; once its lease
 *   has run out it is given up and the event sent again (both backends);
 * - a digest that fails to compose does not stop alerts, nor the other users' digests (both backends);
 * - the replicas' freshness wait failing or hanging releases the claims at once, spending no
 *   attempt, for webhooks and mail (PostgreSQL only: replicas are PostgreSQL standbys; a private
 *   primary with a real hot standby).
 *
 * The faults come from the database itself: a trigger that refuses one endpoint's attempts or one
 * user's digest, and, for the freshness wait, a function in the database's own schema that
 * stands in front of `pg_current_wal_insert_lsn()` (the database's search_path puts `public` before
 * `pg_catalog`) and raises or sleeps when the test says so. The product's code is the same as in
 * production. Leases are short here (WEBHOOK_LEASE_SECONDS, MAIL_LEASE_SECONDS).
 */

afterAll(dropCreatedDatabases);

const WEBHOOK_LEASE_SECONDS = 3;
const MAIL_LEASE_SECONDS = 4;
const PASSWORD = "stranded-test-password";
const DAY_MS = 86_400_000;

const leases = { WEBHOOK_LEASE_SECONDS: String(WEBHOOK_LEASE_SECONDS), MAIL_LEASE_SECONDS: String(MAIL_LEASE_SECONDS), MAIL_RETRY_SECONDS: "1,1" };

/** A dashboard user with mail settings (`user mail`'s options without the dashes), made in-process. */
async function addUser(db: Db, email: string, access: string[], settings: Record<string, unknown>): Promise<number> {
  await createUser(db.db, { email, password: PASSWORD, access });
  const { userId } = await mailUserByEmail(db.db, email);
  const patch = parseMailSettingsPatch(settings);
  if (!patch.ok) throw new Error(JSON.stringify(patch.errors));
  await changeMailSettings(db, userId, patch.request);
  return userId;
}

/** A trigger that refuses inserts into `table` whose `column` is `value`: the database itself refuses the write. */
async function refuseInserts(db: Db, name: string, table: string, column: string, value: string | number) {
  const literal = typeof value === "number" ? String(value) : `'${value}'`;
  if (db.dialect === "postgres") {
    await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`).execute(db.db);
    await sql.raw(`create trigger ${name} before insert on ${table} for each row when (new.${column} = ${literal}) execute function ${name}()`).execute(db.db);
  } else {
    await sql.raw(`create trigger ${name} before insert on ${table} when new.${column} = ${literal} begin select raise(abort, 'refused by the test'); end`).execute(db.db);
  }
}

async function allowInserts(db: Db, name: string, table: string) {
  await sql.raw(`drop trigger ${name}${db.dialect === "postgres" ? ` on ${table}` : ""}`).execute(db.db);
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe.each(backends)("stranded claims on $name", (backend: Backend) => {
  const world = new WebhookWorld();
  const { receiver } = world;
  const catcher = new MailCatcher();
  let server: TestServer;
  let brokenDigestUser = 0;
  let goodDigestUser = 0;

  beforeAll(async () => {
    await catcher.start();
    await world.setUp(backend, { stuck: "stuck", later: "later" });
    world.env = { ...world.env, ...leases, SMTP_URL: catcher.url, APP_URL: "https://disputes.example.test" };
    await Promise.all([world.addEndpoint("stuck", "/stuck"), world.addEndpoint("later", "/later")]);
    const db = world.db;
    await addUser(db, "alerts@example.test", ["alerted"], { digest: "off", alerts: true });
    // Two users whose daily digest fell due at midnight UTC (made two days ago): one the database refuses.
    brokenDigestUser = await addUser(db, "broken-digest@example.test", ["alerted"], { digest: "daily", at: "00:00", zone: "UTC", alerts: false });
    goodDigestUser = await addUser(db, "good-digest@example.test", ["alerted"], { digest: "daily", at: "00:00", zone: "UTC", alerts: false });
    await db.db.updateTable("users").set({ created_at: Date.now() - 2 * DAY_MS }).where("id", "in", [brokenDigestUser, goodDigestUser]).execute();
    await refuseInserts(db, "refuse_digest", "mail_digests", "user_id", brokenDigestUser);
    await refuseInserts(db, "refuse_attempt", "webhook_attempts", "endpoint_id", world.ids["/stuck"]);
    server = await startServer(world.env);
  });

  afterAll(async () => {
    await server?.stop();
    await catcher.stop();
    await world.tearDown();
  });

  it("a digest that fails to compose stops neither alerts nor the other users' digests, and is logged once", async () => {
    must(await world.importFiles(writeFile("CHB_20260401.csv", "chargeback", { alerted: 2 })), "import");
    // The alert goes out within a few polls, whatever the broken digest does.
    const [alert] = await until("the alert", () => (catcher.to("alerts@example.test").length > 0 ? catcher.to("alerts@example.test") : undefined), 10_000);
    expect(alert.mail.subject).toMatch(/^New chargebacks: 2 in the file of 2026-04-01$/);
    // The good user's period was composed; the broken user's was not (nothing of it stored).
    const digests = await world.db.db.selectFrom("mail_digests").select(["user_id"]).execute();
    expect(digests.map((d) => Number(d.user_id))).toEqual([goodDigestUser]);
    await sleep(2_000);
    const log = server.output();
    expect(count(log, "a user's digest could not be composed"), log).toBe(1);
    expect(log).not.toMatch(/"msg":"mail dispatcher: failed/);
  });

  it("an outcome the database refuses to record holds up no later claim, and is given up when its lease runs out", async () => {
    must(await world.importFiles(writeFile("CHB_20260402.csv", "chargeback", { stuck: 1 })), "import stuck");
    const [first] = await until("the first attempt at /stuck", () => (receiver.at("/stuck").length > 0 ? receiver.at("/stuck") : undefined));
    // The outcome is refused now, and at every round while the lease lasts.
    must(await world.importFiles(writeFile("CHB_20260403.csv", "chargeback", { later: 1 })), "import later");
    await until("the event of /later, claimed while /stuck's outcome is unrecorded", () => receiver.at("/later").length > 0, 6_000);
    await until("/later recorded", async () => (await world.deliveries("/later"))[0]?.state === "delivered");
    // Given up once its lease has run out: claimed again, the same event sent again as the next attempt.
    const hits = await until("the event sent again after the lease", () => (receiver.at("/stuck").length >= 2 ? receiver.at("/stuck") : undefined), WEBHOOK_LEASE_SECONDS * 1000 + 6_000);
    expect(hits[1].event.id).toBe(first.event.id);
    expect(server.output()).toContain("webhook dispatcher: an attempt's outcome could not be recorded before its lease ran out");
    // Once the database takes it again, the next attempt is recorded.
    await allowInserts(world.db, "refuse_attempt", "webhook_attempts");
    await until("/stuck recorded", async () => (await world.deliveries("/stuck"))[0]?.state === "delivered", WEBHOOK_LEASE_SECONDS * 1000 + 6_000);
    const attempts = await world.attempts("/stuck");
    expect(attempts.length).toBe(1);
    expect(Number(attempts[0].attempt)).toBeGreaterThanOrEqual(2);
  });
});

/** The freshness wait's fault: off, raise an error, or sleep far past every bound. */
type Fault = "off" | "throw" | "hang";

describe.skipIf(!PG_BIN)("stranded claims: the replicas' freshness wait fails (a private primary with a hot standby)", () => {
  let primary: PrivateCluster | undefined;
  let standby: Standby | undefined;
  const world = new WebhookWorld();
  const { receiver } = world;
  const catcher = new MailCatcher();
  let server: TestServer | undefined;

  const setFault = (fault: Fault) => sql`update freshness_fault set fault = ${fault}`.execute(world.db.db);
  /** The newest delivery to /fresh and the newest message: the work of the latest import. */
  const delivery = async () => (await world.deliveries("/fresh")).at(-1);
  const message = () => world.db.db.selectFrom("mail_messages").selectAll().orderBy("id", "desc").executeTakeFirst();
  const failures = () => count(server!.output(), "the replicas' freshness wait failed; the claims were given back");

  /**
   * Under the fault: both dispatchers log the failure (once each, as it begins), the claims are
   * given back each round with no attempt counted, and nothing is sent. Without the fault: the
   * work goes out at once, as its first attempt.
   */
  async function faultThenRecovery(fault: Fault, date: string) {
    const before = failures();
    const sent = { hooks: receiver.at("/fresh").length, mail: catcher.to("fresh@example.test").length };
    await setFault(fault);
    must(await world.importFiles(writeFile(`CHB_${date}.csv`, "chargeback", { fresh: 1 })), "import");
    // Several rounds of claim, failed wait and release.
    await sleep(5_000);
    for (const [what, row] of [
      ["delivery", delivery],
      ["message", message],
    ] as const) {
      // Claimed again each round and given back: seen between two rounds as it was before any claim.
      await until(`the ${what} given back`, async () => {
        const r = await row();
        return r !== undefined && Number(r.attempts) === 0 && r.claimed_until === null && r.claim_token === null;
      }, 5_000);
    }
    expect(receiver.at("/fresh")).toHaveLength(sent.hooks);
    expect(catcher.to("fresh@example.test")).toHaveLength(sent.mail);
    // Each dispatcher logged the failure once, as it began.
    expect(failures()).toBe(before + 2);
    await setFault("off");
    await until("the event at /fresh", () => receiver.at("/fresh").length > sent.hooks, 15_000);
    await until("the alert", () => catcher.to("fresh@example.test").length > sent.mail, 15_000);
    await until("both recorded", async () => (await delivery())?.state === "delivered" && (await message())?.state === "delivered", 10_000);
    const latest = Number((await delivery())!.id);
    const attempts = (await world.attempts("/fresh")).filter((a) => Number(a.delivery_id) === latest);
    expect(attempts.map((a) => Number(a.attempt))).toEqual([1]);
    expect(Number((await message())!.attempts)).toBe(1);
    expect(receiver.at("/fresh")).toHaveLength(sent.hooks + 1);
    expect(catcher.to("fresh@example.test")).toHaveLength(sent.mail + 1);
  }

  beforeAll(async () => {
    await catcher.start();
    primary = await createPrivateCluster({ replication: true });
    standby = await createStandby(primary);
    const cluster = primary;
    const backend: Backend = { name: "postgres", create: async () => cluster.url };
    await world.setUp(backend, { fresh: "fresh" });
    world.env = { ...world.env, ...leases, SMTP_URL: catcher.url, APP_URL: "https://disputes.example.test", DATABASE_REPLICA_URLS: standby.url, REPLICA_MAX_LAG_SECONDS: "1", PG_QUERY_TIMEOUT_SECONDS: "60" };
    await world.addEndpoint("fresh", "/fresh");
    await addUser(world.db, "fresh@example.test", ["fresh"], { digest: "off", alerts: true });
    const db = world.db.db;
    await sql`create table freshness_fault (fault text not null)`.execute(db);
    await sql`insert into freshness_fault values ('off')`.execute(db);
    await sql
      .raw(
        `create function public.pg_current_wal_insert_lsn() returns pg_lsn language plpgsql as $$
          declare f text;
          begin
            select fault into f from public.freshness_fault;
            if f = 'throw' then raise exception 'the primary refuses the freshness query (test)'; end if;
            if f = 'hang' then perform pg_catalog.pg_sleep(30); end if;
            return pg_catalog.pg_current_wal_insert_lsn();
          end $$`,
      )
      .execute(db);
    const name = new URL(cluster.url).pathname.slice(1);
    await sql.raw(`alter database ${name} set search_path = public, pg_catalog`).execute(db);
    // A backend whose client has gone (a hang cut short) stops sleeping within a second.
    await sql.raw(`alter database ${name} set client_connection_check_interval = 1000`).execute(db);
    server = await startServer(world.env);
  });

  afterAll(async () => {
    await server?.stop();
    await catcher.stop();
    await world.tearDown();
    await standby?.destroy();
    await primary?.destroy();
  });

  it("a freshness query that throws gives the claims back at once: nothing is sent and no attempt is spent", async () => {
    await faultThenRecovery("throw", "20260410");
  });

  it("a freshness query that hangs gives the claims back within its bound: nothing is sent and no attempt is spent", async () => {
    await faultThenRecovery("hang", "20260411");
  });
});
