import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { createUser } from "@/lib/auth/accounts";
import { FIELDS_BY_KIND, importColumns, type RecordKind } from "@/lib/domain/fields";
import { KINDS } from "@/lib/domain/kinds";
import { changeMailSettings, mailUserByEmail } from "@/lib/mail/settings";
import { parseMailSettingsPatch } from "@/lib/schemas/mail-settings";
import { recordFingerprint, serializeRecordKey } from "@/lib/url-state/record-key";
import { signedHeaders } from "../api/harness";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { startServer, type TestServer } from "../helpers/server";
import { type Caught, MailCatcher } from "../helpers/smtp";
import { must, sleep, until } from "../helpers/webhooks";

/**
 * Mail to people (docs/mail.md) end to end, on every backend: users and settings made with the
 * real admin command, files loaded with the real import command, digests composed and sent by
 * `digest run --at`, alerts sent by production servers (`npm start`'s process), and a real SMTP
 * server on loopback (tests/helpers/smtp.ts) that parses every message with mailparser.
 * MAIL_RETRY_SECONDS is 1,1: three attempts, one second apart. `digest run` without SMTP_URL:
 * tests/integration/admin.test.ts.
 *
 * The digests are asked for at instants in March 2027 (after every user's creation): the last
 * Sunday of March 2027 (the 28th) is when Berlin's clocks skip from 02:00 to 03:00; New York has
 * been on summer time since the 14th.
 */

afterAll(dropCreatedDatabases);

const APP_URL = "https://disputes.example.test";
const RETRY = [1, 1];
// A message becomes due at most one poll (1 s) before it is claimed; sending takes a few ms.
const POLL_SLACK_MS = 1_800;

const PASSWORD = "mail-test-password";

/** A shop code that HTML must escape (shop codes may hold anything but spaces, commas and controls). */
const ODD_SHOP = `x<b>&"'`;

/** The users: access list and `user mail` options. Every one of them has digests off unless named here. */
const USERS: Record<string, { access: string[]; mail: string[] }> = {
  "tokyo@example.test": { access: ["tz"], mail: ["--zone", "Asia/Tokyo", "--at", "08:00"] },
  "ny@example.test": { access: ["tz"], mail: ["--zone", "America/New_York", "--at", "8:00"] },
  "berlin@example.test": { access: ["tz"], mail: ["--zone", "Europe/Berlin", "--at", "02:30"] },
  "weekly@example.test": { access: ["tz"], mail: ["--digest", "weekly"] },
  "quiet@example.test": { access: ["empty-shop"], mail: ["--digest", "daily"] },
  "alice@example.test": { access: ["a1", "a2", ODD_SHOP, "Z9"], mail: ["--digest", "off", "--alerts", "on"] },
  "bob@example.test": { access: ["b1"], mail: ["--digest", "off", "--alerts", "on"] },
  "carol@example.test": { access: ["a1"], mail: ["--digest", "off", "--alerts", "off"] },
  "dave@example.test": { access: ["d1"], mail: ["--digest", "off", "--alerts", "on"] },
  "erin@example.test": { access: ["e1"], mail: ["--digest", "off", "--alerts", "on"] },
  // Turns alerts off after the import that stored one for her, before a server runs.
  "frank@example.test": { access: ["a1"], mail: ["--digest", "off", "--alerts", "on"] },
  // Turned on for a running server to compose (digests off while `digest run` makes March 2027's).
  "live@example.test": { access: ["live"], mail: ["--digest", "off"] },
  ...Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`m${i}@example.test`, { access: ["multi"], mail: ["--digest", "off", "--alerts", "on"] }])),
};
/** Made after the first file: its records are not new to this user, its disputes are due. */
const CONTENT_USER = "content@example.test";
/** An API credential with the content user's shops, to ask the worklist and the searches. */
const API_SHOP = { shop: "c1", password: "c1-api-password", access: ["c1", "c2"] };

const SECRET_COMMENT = "TOP-SECRET-COMMENT-TEXT";
const CARD = "512345%9876";

type Row = Record<string, string>;

const chb = (shop: string, arn: string, proc: string, amount: string, extra: Row = {}): Row => ({
  ...MINIMAL_ROW.chargeback,
  shop_code: shop,
  acq_ref_nr: arn,
  chb_proc_date: proc,
  chb_amount: amount,
  card: CARD,
  comments: SECRET_COMMENT,
  merchant_comments: `${SECRET_COMMENT}-M`,
  ...extra,
});
const cas = (shop: string, arn: string, caseDate: string, amount: string): Row => ({
  ...MINIMAL_ROW.pre_arbitration,
  shop_code: shop,
  acq_ref_nr: arn,
  case_date: caseDate,
  amount,
  card: "411111%0001",
  fdl_comments: `${SECRET_COMMENT}-F`,
});

/**
 * The content user's digest is made for 2027-03-27 (08:00 UTC). Answer-by = base date + 14 days
 * (the acquirer's default window, under every scheme limit); MC chargebacks expire 45 days after
 * their date, VISA cases 30.
 */
const D = "2027-03-27";
const OLD_FILE: Row[] = [chb("c1", "ARN-C1-OLD", "2027-03-12", "1.00") /* answer by 03-26: overdue */, chb("a1", "ARN-A1-OLD", "2027-03-12", "1.00")];
const CONTENT_CHB: Row[] = [
  chb("c1", "ARN-C1-OVER", "2027-03-10", "10.00"), // 03-24: overdue
  chb("c1", "ARN-C1-SOON", "2027-03-14", "11.00"), // 03-28: D+1
  chb("c1", "ARN-C1-WEEK", "2027-03-19", "12.00"), // 04-02: D+6
  chb("c1", "ARN-C1-LATER", "2027-03-25", "13.00"), // 04-08: not within 7 days
  chb("c1", "ARN-C1-EXPIRED", "2027-02-01", "14.00"), // expired 03-18
  chb("c1", "ARN-C1-DECIDED", "2027-03-14", "15.00", { merchant_decision: "Accept CB", merchant_resp_date: "2027-03-20" }),
  chb("c1", "ARN-C1-REV", "2027-03-14", "5.00", { rev_indicator: "R" }),
  chb("c2", "ARN-C2-SOON", "2027-03-13", "20.50", { chb_ccy: "USD" }), // 03-27: D
  chb("c2", "ARN-C2-WEEK", "2027-03-17", "30.25", { chb_ccy: "USD" }), // 03-31: D+4
  chb("c3", "ARN-C3-NOT-MINE", "2027-03-14", "99.00"), // another shop
  chb("tz", "ARN-TZ-1", "2027-03-01", "3.00"), // answer by 03-15, expires 04-15: overdue all along
  chb("a1", "ARN-A1-1", "2027-03-20", "4.00"),
  chb("tz", "ARN-TZ-OCT", "2027-10-20", "3.00"), // answer by 11-03: due in late October
  // Due 4 days after today, whatever today is: for the digest a running server composes.
  chb("live", "ARN-LIVE-1", new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10), "6.00"),
];
const CONTENT_CASES: Row[] = [
  cas("c1", "ARN-C1-CASE", "2027-03-20", "7.00"), // VISA: 04-03, D+7
  cas("c2", "ARN-C2-CASE", "2027-03-05", "8.00"), // 03-19: overdue, expires 04-04
  cas("a2", "ARN-A2-CASE", "2027-03-20", "2.00"),
];
/** The due disputes of c1 and c2 on D in the worklist's order: answer-by date, chargebacks first, then ID. */
const DUE_ORDER = ["ARN-C2-CASE", "ARN-C1-OVER", "ARN-C1-OLD", "ARN-C2-SOON", "ARN-C1-SOON", "ARN-C2-WEEK", "ARN-C1-WEEK", "ARN-C1-CASE"];

describe.each(backends)("mail on $name", (backend) => {
  const catcher = new MailCatcher();
  const servers: TestServer[] = [];
  let env: Record<string, string> = {};
  let files = "";
  let db: Db;
  let contentDigest: Caught | undefined;

  const admin = (args: string[], extra: Record<string, string> = {}) => runCli("admin.ts", args, { ...env, ...extra });
  const importFiles = (paths: string[], extra: Record<string, string> = {}) => runCli("import.ts", paths, { ...env, ...extra });
  const digestRun = (at: string) => admin(["digest", "run", "--at", at]);

  function writeCsv(name: string, kind: RecordKind, rows: Row[]): string {
    const columns = importColumns(kind);
    const file = path.join(files, name);
    fs.writeFileSync(file, stringify([columns, ...rows.map((r) => columns.map((c) => r[c] ?? ""))]));
    return file;
  }

  /** A dashboard user with mail settings given as `user mail` options ("--zone", "Asia/Tokyo", ...). */
  async function addUser(email: string, access: string[], options: string[]) {
    await createUser(db.db, { email, password: PASSWORD, access });
    if (options.length > 0) await addUserSettings(email, options);
  }

  async function addUserSettings(email: string, options: string[]) {
    const { userId } = await mailUserByEmail(db.db, email);
    const raw: Record<string, unknown> = {};
    for (let i = 0; i < options.length; i += 2) raw[options[i].slice(2)] = options[i] === "--alerts" ? options[i + 1] === "on" : options[i + 1];
    const patch = parseMailSettingsPatch(raw);
    if (!patch.ok) throw new Error(`${email}: ${JSON.stringify(patch.errors)}`);
    await changeMailSettings(db, userId, patch.request);
  }

  /** `mail list` as rows of named cells, cut at the header's column starts. */
  async function mailList(): Promise<Record<string, string>[]> {
    const out = must(await admin(["mail", "list"]), "mail list").stdout.trimEnd();
    if (out === "no messages") return [];
    const [header, ...lines] = out.split("\n");
    const names = ["ID", "USER", "KIND", "STATE", "ATTEMPTS", "CREATED", "SENT", "LAST ERROR"];
    const starts = names.map((n) => header.indexOf(n));
    expect(starts.every((s, i) => s >= 0 && (i === 0 || s > starts[i - 1]))).toBe(true);
    return lines.map((line) => Object.fromEntries(names.map((n, i) => [n, line.slice(starts[i], starts[i + 1] ?? undefined).trim()])));
  }

  const digestDate = (c: Caught) => /digest for (\d{4}-\d\d-\d\d) \(/.exec(c.mail.text ?? "")?.[1];
  const recipients = (caught: Caught[]) => caught.map((c) => `${c.to.join(",")} ${digestDate(c) ?? c.mail.subject}`).sort();
  const header = (c: Caught, name: string) =>
    c.mail.headerLines
      .find((h) => h.key === name)
      ?.line.replace(/\r?\n/g, "")
      .slice(name.length + 1)
      .trim();

  beforeAll(async () => {
    await catcher.start();
    files = tempDir("disputes-mail-files-");
    const url = await backend.create();
    env = {
      DATABASE_URL: url,
      APP_KEY_FILE: path.join(tempDir("disputes-mail-key-"), "app.key"),
      APP_SECRET: "",
      RATE_LIMIT_PER_MINUTE: "0",
      SMTP_URL: catcher.url,
      APP_URL,
      MAIL_FROM: "Dispute review <disputes@example.test>",
      MAIL_RETRY_SECONDS: RETRY.join(","),
      SHUTDOWN_TIMEOUT_SECONDS: "5",
    };
    // The first command makes the schema.
    must(await admin(["shop", "add", API_SHOP.shop, "--password", API_SHOP.password, "--access", API_SHOP.access.join(",")]), "shop add");
    // Users and their settings are made in-process (the commands themselves: admin.test.ts): two
    // CPUs start a command a second, and SQLite refuses concurrent `user mail`s (see the report).
    db = await openDatabase(url);
    for (const [email, user] of Object.entries(USERS)) await addUser(email, user.access, user.mail);
    // Without SMTP_URL an import stores no alerts (alice's shop a1 is in this file).
    must(await importFiles([writeCsv("CHB_20270301.csv", "chargeback", OLD_FILE)], { SMTP_URL: "" }), "import without SMTP_URL");
    expect(await db.db.selectFrom("mail_messages").select("id").execute()).toEqual([]);
    await addUser(CONTENT_USER, ["c1", "c2"], []);
    must(await importFiles([writeCsv("CHB_20270326.csv", "chargeback", CONTENT_CHB), writeCsv("PREARB_29_20270326.csv", "pre_arbitration", CONTENT_CASES)]), "import");
    await addUserSettings("frank@example.test", ["--alerts", "off"]);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await catcher.stop();
    await db?.close();
  });

  it("digest run --at sends each user's digest at their local time, across zones and a daylight-saving change; weekly on Mondays; each period once", async () => {
    // The first run: everyone's latest period. Tokyo's answer is 451 (kept for a server to try
    // again), the weekly one's 550 (failed at once): the command exits 1.
    catcher.failNext(1, 451, "tokyo@example.test");
    catcher.failNext(1, 550, "weekly@example.test");
    const runs: [at: string, expected: string[], code?: number][] = [
      [
        "2027-03-27T12:00:00Z", // Tokyo 21:00, New York 08:00, Berlin 13:00, a Saturday
        [`${CONTENT_USER} ${D}`, "berlin@example.test 2027-03-27", "ny@example.test 2027-03-27"],
        1,
      ],
      ["2027-03-27T22:59:00Z", []], // Tokyo 07:59 on the 28th: not yet
      ["2027-03-27T23:00:00Z", ["tokyo@example.test 2027-03-28"]], // Tokyo 08:00
      ["2027-03-28T00:59:00Z", []], // Berlin 01:59 CET, a minute before the gap: its 02:30 is not yet
      ["2027-03-28T01:00:00Z", ["berlin@example.test 2027-03-28"]], // Berlin 03:00 CEST: 02:30 never happened, the first moment after it
      ["2027-03-28T01:00:00Z", []], // the same period again: nothing
      ["2027-03-28T12:00:00Z", [`${CONTENT_USER} 2027-03-28`, "ny@example.test 2027-03-28"]], // New York 08:00 EDT
      // Monday: the weekly digest; New York (04:00) has had Sunday's.
      ["2027-03-29T08:00:00Z", [`${CONTENT_USER} 2027-03-29`, "berlin@example.test 2027-03-29", "tokyo@example.test 2027-03-29", "weekly@example.test 2027-03-29"]],
      // Tuesday at the weekly user's hour: no weekly digest.
      ["2027-03-30T08:00:00Z", [`${CONTENT_USER} 2027-03-30`, "berlin@example.test 2027-03-30", "ny@example.test 2027-03-29", "tokyo@example.test 2027-03-30"]],
      // The last Sunday of October: Berlin's 02:30 happens twice (00:30Z in CEST, 01:30Z in CET); the first counts.
      ["2027-10-31T00:30:00Z", ["berlin@example.test 2027-10-31", "ny@example.test 2027-10-30", "tokyo@example.test 2027-10-31"]],
      ["2027-10-31T01:30:00Z", []],
    ];
    const outputs: string[] = [];
    for (const [at, expected, code = 0] of runs) {
      const before = catcher.received.length;
      const result = await digestRun(at);
      outputs.push(result.stdout);
      expect(result.code, `${at}\n${result.stdout}\n${result.stderr}`).toBe(code);
      expect(recipients(catcher.received.slice(before)), `${at}\n${result.stdout}${result.stderr}`).toEqual([...expected].sort());
      expect(result.stdout).toContain(`digests due at ${new Date(at).toISOString()}: `);
      if (expected.length === 0) expect(result.stdout).toMatch(/: 0; sent 0, not accepted 0, nothing to say 0/);
    }
    contentDigest = catcher.to(CONTENT_USER)[0];
    // The first run: 3 delivered, 2 not accepted, and the quiet user's period had nothing to say.
    expect(outputs[0]).toMatch(/: 6; sent 3, not accepted 2, nothing to say 1\n/);
    const weeklyFirst = catcher.attemptsTo("weekly@example.test")[0];
    expect(weeklyFirst.answer).toBe(550);
    expect(catcher.attemptsTo("tokyo@example.test")[0].answer).toBe(451);
    expect(digestDate(weeklyFirst)).toBe("2027-03-22"); // the Monday before the 27th
    expect(catcher.attemptsTo("weekly@example.test").map(digestDate)).toEqual(["2027-03-22", "2027-03-29"]);
    expect(catcher.to("quiet@example.test")).toEqual([]);

    // Every period was claimed once, the quiet user's too, at the instants of the rules.
    const periods = await db.db.selectFrom("mail_digests").innerJoin("users", "users.id", "mail_digests.user_id").select(["users.email", "mail_digests.period_at", "mail_digests.message_id"]).execute();
    const of = (email: string) =>
      periods
        .filter((p) => p.email === email)
        .map((p) => new Date(Number(p.period_at)).toISOString())
        .sort();
    expect(of("berlin@example.test")).toEqual(["2027-03-27T01:30:00.000Z", "2027-03-28T01:00:00.000Z", "2027-03-29T00:30:00.000Z", "2027-03-30T00:30:00.000Z", "2027-10-31T00:30:00.000Z"]);
    expect(of("tokyo@example.test")).toEqual(["2027-03-26T23:00:00.000Z", "2027-03-27T23:00:00.000Z", "2027-03-28T23:00:00.000Z", "2027-03-29T23:00:00.000Z", "2027-10-30T23:00:00.000Z"]);
    expect(of("ny@example.test")).toEqual(["2027-03-27T12:00:00.000Z", "2027-03-28T12:00:00.000Z", "2027-03-29T12:00:00.000Z", "2027-10-30T12:00:00.000Z"]);
    // Sunday 2027-10-31: the weekly one's last Monday, the 25th, had nothing due within 7 days.
    expect(of("weekly@example.test")).toEqual(["2027-03-22T08:00:00.000Z", "2027-03-29T08:00:00.000Z", "2027-10-25T08:00:00.000Z"]);
    expect(of("quiet@example.test")).toEqual(["2027-03-27T08:00:00.000Z", "2027-03-28T08:00:00.000Z", "2027-03-29T08:00:00.000Z", "2027-03-30T08:00:00.000Z", "2027-10-30T08:00:00.000Z"]);
    expect(periods.filter((p) => p.email === "quiet@example.test").map((p) => p.message_id)).toEqual([null, null, null, null, null]);
    expect(of("alice@example.test")).toEqual([]);

    const list = await mailList();
    expect(list.filter((m) => m.USER === "quiet@example.test")).toEqual([]);
    const weekly = list.filter((m) => m.USER === "weekly@example.test");
    expect(weekly.map((m) => [m.KIND, m.STATE, m.ATTEMPTS])).toEqual([
      ["digest", "delivered", "1"],
      ["digest", "failed", "1"],
    ]);
    expect(weekly[1]["LAST ERROR"]).toMatch(/550/);
    expect(weekly[1].SENT).toBe("");
    const tokyo = list.filter((m) => m.USER === "tokyo@example.test");
    expect(tokyo.map((m) => [m.STATE, m.ATTEMPTS])).toEqual([
      ["delivered", "1"],
      ["delivered", "1"],
      ["delivered", "1"],
      ["delivered", "1"],
      ["retry", "1"],
    ]);
    expect(tokyo.at(-1)!["LAST ERROR"]).toMatch(/451/);
    // Every digest says whose date and zone it is.
    for (const c of catcher.to("tokyo@example.test")) expect(c.mail.text).toMatch(/^Your daily dispute digest for \d{4}-\d\d-\d\d \(Asia\/Tokyo\)\./);
    expect(catcher.to("weekly@example.test")[0].mail.text).toMatch(/^Your weekly dispute digest for 2027-03-29 \(UTC\)\./);
    // The next digests count from the marks of the previous one: nothing was imported since.
    expect(catcher.to(CONTENT_USER).map((c) => c.mail.subject)).toEqual([
      "Disputes: 11 new, 8 due within 7 days",
      "Disputes: 0 new, 8 due within 7 days", // the 28th: the same 8 (ARN-C2-SOON now overdue; ARN-C1-LATER, 04-08, not yet)
      expect.stringMatching(/^Disputes: 0 new, \d+ due within 7 days$/),
      expect.stringMatching(/^Disputes: 0 new, \d+ due within 7 days$/),
    ]);
  });

  it("a digest says what is new and what is due in the user's shops only, in a text and an HTML part with the same facts", () => {
    const c = contentDigest!;
    expect(c).toBeDefined();
    expect(digestDate(c)).toBe(D);
    // New: the 9 chargebacks and 2 cases of c1 and c2 in the file after the user was made (not the
    // old file's, not c3's); due: the 8 of DUE_ORDER.
    expect(c.mail.subject).toBe("Disputes: 11 new, 8 due within 7 days");
    expect(c.from).toBe("disputes@example.test");
    expect(c.to).toEqual([CONTENT_USER]);
    const text = c.mail.text!;
    const html = c.mail.html as string;
    expect(text).toContain("NEW: 11 records since your previous digest");
    expect(text).toMatch(/ {2}Chargebacks: 9\n {4}shop c1: 7\n {4}shop c2: 2\n {4}EUR 75\.00 \(reversals: EUR 5\.00\)\n {4}USD 50\.75 \(reversals: USD 0\.00\)\n/);
    expect(text).toMatch(/shop c1: 1\n {4}shop c2: 1\n {4}EUR 15\.00\n/);
    expect(text).toContain("DUE: 8 disputes need an answer within 7 days");
    expect(text).toContain("  overdue: 3\n  due today to 2 days ahead: 2\n  due in 3 to 7 days: 3\n");
    // The listed disputes in the worklist's order, each with its facts and a link.
    const listed = [...text.matchAll(/^ {2}(\d{4}-\d\d-\d\d) (overdue|due) +(\S.*?) +ARN (\S+) +shop (\S+) +([A-Z]{3}) (\S+)$/gm)].map((m) => ({ answerBy: m[1], status: m[2], arn: m[4], shop: m[5], ccy: m[6], amount: m[7] }));
    expect(listed.map((l) => l.arn)).toEqual(DUE_ORDER);
    expect(listed.find((l) => l.arn === "ARN-C2-SOON")).toEqual({ answerBy: "2027-03-27", status: "due", arn: "ARN-C2-SOON", shop: "c2", ccy: "USD", amount: "20.50" });
    expect(listed.find((l) => l.arn === "ARN-C1-OVER")).toMatchObject({ answerBy: "2027-03-24", status: "overdue", amount: "10.00" });
    expect(listed.find((l) => l.arn === "ARN-C1-CASE")).toMatchObject({ answerBy: "2027-04-03", status: "due", ccy: "EUR", amount: "7.00" });
    for (const arn of ["ARN-C1-LATER", "ARN-C1-EXPIRED", "ARN-C1-DECIDED", "ARN-C1-REV", "ARN-C3-NOT-MINE", "c3"]) {
      expect(text).not.toContain(arn);
      expect(html).not.toContain(arn);
    }
    // The HTML part says the same.
    const htmlText = html.replace(/<[^>]+>/g, " ").replace(/&amp;/g, "&").replace(/\s+/g, " ");
    expect(htmlText).toContain("New: 11 records since your previous digest");
    expect(htmlText).toContain("Due: 8 disputes need an answer within 7 days");
    expect(htmlText).toMatch(/Chargebacks: 9 Shop Records c1 7 c2 2 Currency Amount Reversals EUR 75\.00 5\.00 USD 50\.75 0\.00/);
    expect(htmlText).toMatch(/Overdue Today to 2 days 3 to 7 days 3 2 3/);
    const htmlArns = [...html.matchAll(/<a href="[^"]*"[^>]*>(ARN-[^<]+)<\/a>/g)].map((m) => m[1]);
    expect(htmlArns).toEqual(DUE_ORDER);
    for (const l of listed) expect(htmlText).toContain(`${l.answerBy} ${l.status}`);
    for (const l of listed) expect(htmlText).toContain(`${l.ccy} ${l.amount}`);
    // Links: every one starts with APP_URL, in both parts; the same links in both.
    const textLinks = [...text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
    const htmlLinks = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, "&"));
    expect(textLinks.length).toBe(DUE_ORDER.length + 2);
    for (const link of [...textLinks, ...htmlLinks]) expect(link.startsWith(`${APP_URL}/`), link).toBe(true);
    expect(new Set(htmlLinks)).toEqual(new Set(textLinks));
    expect(textLinks).toContain(`${APP_URL}/worklist`);
    expect(textLinks.filter((l) => l.startsWith(`${APP_URL}/chargebacks?open=`))).toHaveLength(6);
    expect(textLinks.filter((l) => l.startsWith(`${APP_URL}/pre-arbitration?open=`))).toHaveLength(2);
    // Headers (RFC 8058) and the unsubscribe link of the digest kind, in the footer too.
    const unsubscribe = header(c, "list-unsubscribe")!;
    expect(unsubscribe).toMatch(new RegExp(`^<${APP_URL.replace(/[.]/g, "\\.")}/unsubscribe/\\d+\\.digest\\.[A-Za-z0-9_-]{43}>$`));
    expect(header(c, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(header(c, "auto-submitted")).toBe("auto-generated");
    expect(textLinks).toContain(unsubscribe.slice(1, -1));
    expect(html).toContain(`href="${unsubscribe.slice(1, -1)}"`);
    // No free text of the records and no card data, masked or not; HTML for mail clients.
    expect(c.raw).not.toContain(SECRET_COMMENT);
    for (const secret of [SECRET_COMMENT, "512345", "9876", "411111", "%9876", "%0001"]) expect(`${c.mail.subject}\n${text}\n${html}`).not.toContain(secret);
    expect(html).not.toMatch(/<script|<style|<link|<img|class=/i);
    expect(html).toContain("max-width:600px");
  });

  it("messages stored while no server ran (alerts of an import, a digest to try again) are sent once a server starts", async () => {
    // The import in beforeAll stored alice's alerts: one per file with records in her shops.
    await sleep(300);
    expect(catcher.to("alice@example.test")).toEqual([]);
    const before = await mailList();
    expect(before.filter((m) => m.USER === "alice@example.test").map((m) => [m.KIND, m.STATE, m.ATTEMPTS])).toEqual([
      ["alert", "pending", "0"],
      ["alert", "pending", "0"],
    ]);
    expect(before.filter((m) => ["bob@example.test", "carol@example.test", "dave@example.test"].includes(m.USER))).toEqual([]);
    // Frank turned alerts off after the import: his is not sent.
    expect(before.filter((m) => m.USER === "frank@example.test").map((m) => [m.KIND, m.STATE, m["LAST ERROR"]])).toEqual([["alert", "failed", "alerts turned off before it was sent"]]);
    // A digest a running server composes by itself: the live user's time is the minute before
    // last, and the user (made with the others) is taken to have been made a minute before that.
    const slot = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
    await db.db.updateTable("users").set({ created_at: slot - 60_000 }).where("email", "=", "live@example.test").execute();
    await addUserSettings("live@example.test", ["--digest", "daily", "--at", new Date(slot).toISOString().slice(11, 16)]);
    const started = Date.now();
    servers.push(await startServer(env));
    await until("the stored messages", () => catcher.to("alice@example.test").length >= 2 && catcher.to("tokyo@example.test").some((c) => digestDate(c) === "2027-03-27"), 10_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(catcher.to("alice@example.test").map((c) => c.mail.subject).sort()).toEqual(["New chargebacks: 1 in the file of 2027-03-26", "New pre-arbitration cases: 1 in the file of 2027-03-26"]);
    // The digest refused with 451 by `digest run` went out again with the same Message-ID.
    const tokyo = catcher.attemptsTo("tokyo@example.test").filter((c) => digestDate(c) === "2027-03-27");
    expect(tokyo.map((c) => c.answer)).toEqual([451, 250]);
    expect(tokyo[1].messageId).toBe(tokyo[0].messageId);
    const live = await until("the live user's digest", () => catcher.to("live@example.test")[0], 10_000);
    expect(live.mail.subject).toMatch(/^Disputes: \d+ new, 1 due within 7 days$/);
    expect(digestDate(live)).toBe(new Date(slot).toISOString().slice(0, 10));
    expect(live.mail.text).toContain("ARN ARN-LIVE-1  shop live");
    const livePeriods = await db.db.selectFrom("mail_digests").innerJoin("users", "users.id", "mail_digests.user_id").select("period_at").where("users.email", "=", "live@example.test").execute();
    expect(livePeriods.map((p) => Number(p.period_at))).toEqual([slot]);
    expect(servers[0].output()).toMatch(/"msg":"digests composed"/);
    await until("recorded", async () => (await db.db.selectFrom("mail_messages").select("id").where("state", "in", ["pending", "retry"]).execute()).length === 0);
    const after = await mailList();
    expect(after.filter((m) => m.STATE === "failed").map((m) => m.USER).sort()).toEqual(["frank@example.test", "weekly@example.test"]);
    expect(catcher.attemptsTo("frank@example.test")).toEqual([]);
    expect(after.find((m) => m.USER === "tokyo@example.test" && m.ATTEMPTS === "2")?.STATE).toBe("delivered");
  });

  it("a running server sends alerts within seconds of an import, to the users with alerts on and shops in the file only; 4xx is tried again, 5xx fails at once", async () => {
    catcher.failNext(1, 451, "alice@example.test");
    catcher.failNext(1, 550, "dave@example.test");
    catcher.failNext(3, 451, "erin@example.test");
    const file = writeCsv("CHB_20270327.csv", "chargeback", [
      chb(ODD_SHOP, "ARN-ODD-1", "2027-03-21", "1.00"),
      chb("Z9", "ARN-Z9-1", "2027-03-21", "1.00"), // before "a1" bytewise, after it in a locale's order
      chb("e1", "ARN-E1-1", "2027-03-21", "1.00"),
      chb("c1", "ARN-C1-NEXT", "2027-03-25", "2.00"), // for the content user's next digest: answer by 04-08
      chb("a1", "ARN-A1-2", "2027-03-21", "1.00"),
      chb("a1", "ARN-A1-3", "2027-03-21", "1.00"),
      chb("a2", "ARN-A2-2", "2027-03-21", "1.00"),
      chb("d1", "ARN-D1-1", "2027-03-21", "1.00"),
      chb("zz", "ARN-ZZ-1", "2027-03-21", "1.00"),
    ]);
    must(await importFiles([file]), "import");
    const imported = Date.now();
    const isNew = (c: Caught) => (c.mail.subject ?? "").endsWith("2027-03-27");
    const first = await until("alice's first attempt", () => catcher.attemptsTo("alice@example.test").find(isNew), 5_000);
    expect(first.at - imported).toBeLessThan(POLL_SLACK_MS + 500);
    expect(first.answer).toBe(451);
    const second = await until("alice's alert", () => catcher.to("alice@example.test").find(isNew), 5_000);
    expect(second.messageId).toBe(first.messageId);
    expect(second.at - first.at).toBeGreaterThanOrEqual(RETRY[0] * 1000 - 100);
    expect(second.at - first.at).toBeLessThan(RETRY[0] * 1000 + POLL_SLACK_MS);

    expect(second.mail.subject).toBe("New chargebacks: 5 in the file of 2027-03-27");
    // Her shops with records in the file, bytewise; the HTML escapes what it is given.
    expect(second.mail.text).toContain(`:\n\n  shop Z9: 1\n  shop a1: 2\n  shop a2: 1\n  shop ${ODD_SHOP}: 1\n\n`);
    const html = second.mail.html as string;
    expect(html).toContain("x&lt;b&gt;&amp;&quot;&#39;");
    expect(html).not.toContain("x<b>");
    const htmlText = html
      .replace(/<[^>]+>/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ");
    expect(htmlText).toContain(`brought 5 chargebacks in your shops: Shop Records Z9 1 a1 2 a2 1 ${ODD_SHOP} 1 `);
    const link = /See them: (\S+)/.exec(second.mail.text!)![1];
    const linked = new URL(link);
    expect(linked.origin + linked.pathname).toBe(`${APP_URL}/chargebacks`);
    expect(Object.fromEntries(linked.searchParams)).toEqual({ from: "2027-03-27", to: "2027-03-27", shops: `Z9,a1,a2,${ODD_SHOP}` });
    expect(html).toContain(`href="${link.replace(/&/g, "&amp;")}"`);
    expect(header(second, "list-unsubscribe")).toMatch(/^<https:\/\/disputes\.example\.test\/unsubscribe\/\d+\.alert\.[A-Za-z0-9_-]{43}>$/);
    expect(header(second, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(second.raw).not.toContain(SECRET_COMMENT);
    for (const secret of ["512345", "9876"]) expect(`${second.mail.text}${second.mail.html}`).not.toContain(secret);

    // 451 three times: tried after 1 s and after 1 s more, then given up.
    const erin = await until("erin's three attempts", () => catcher.attemptsTo("erin@example.test").length >= 3 && catcher.attemptsTo("erin@example.test"), 8_000);
    expect(erin.map((c) => c.answer)).toEqual([451, 451, 451]);
    expect(new Set(erin.map((c) => c.messageId)).size).toBe(1);
    expect(erin[2].at - erin[1].at).toBeGreaterThanOrEqual(RETRY[1] * 1000 - 100);
    const dave = await until("dave's attempt", () => catcher.attemptsTo("dave@example.test")[0], 5_000);
    expect(dave.answer).toBe(550);
    // Nobody else: carol has alerts off, bob's shop is not in the file, zz is nobody's.
    await sleep(RETRY[0] * 1000 + POLL_SLACK_MS);
    expect(catcher.attemptsTo("dave@example.test")).toHaveLength(1);
    expect(catcher.attemptsTo("erin@example.test")).toHaveLength(3);
    expect(catcher.attemptsTo("carol@example.test")).toEqual([]);
    expect(catcher.attemptsTo("bob@example.test")).toEqual([]);
    expect(catcher.attemptsTo("alice@example.test").filter(isNew)).toHaveLength(2);
    const list = await mailList();
    const daveRow = list.find((m) => m.USER === "dave@example.test")!;
    expect([daveRow.KIND, daveRow.STATE, daveRow.ATTEMPTS]).toEqual(["alert", "failed", "1"]);
    expect(daveRow["LAST ERROR"]).toMatch(/550/);
    const erinRow = list.find((m) => m.USER === "erin@example.test")!;
    expect([erinRow.KIND, erinRow.STATE, erinRow.ATTEMPTS, erinRow.SENT]).toEqual(["alert", "failed", "3", ""]);
    expect(erinRow["LAST ERROR"]).toMatch(/451/);
    const aliceRow = list.find((m) => m.USER === "alice@example.test")!; // newest first
    expect([aliceRow.STATE, aliceRow.ATTEMPTS, aliceRow["LAST ERROR"]]).toEqual(["delivered", "2", ""]);
    expect(servers[0].output()).toMatch(/"msg":"mail attempt"/);
    expect(servers[0].output()).not.toContain(SECRET_COMMENT);
  });

  it("the digest's counts are what the worklist and the searches answer for the same shops and date", async () => {
    const c = contentDigest!;
    const api = (route: string, body: unknown) =>
      fetch(`${servers[0].url}/api/${route}`, { method: "POST", headers: { "Content-Type": "application/json", ...signedHeaders(API_SHOP.shop, API_SHOP.password) }, body: JSON.stringify(body) }).then(async (res) => {
        expect(res.status, route).toBe(200);
        return (await res.json()) as { content: Record<string, unknown>[]; totalElements: number };
      });
    const shops = { shop_codes: ["c1", "c2"] };
    const worklist = await api("worklist", { ...shops, as_of: D, answer_by_to: "2027-04-03", per_page: 100 });
    const [, n, m] = /^Disputes: (\d+) new, (\d+) due within 7 days$/.exec(c.mail.subject!)!.map(Number);
    expect(worklist.totalElements).toBe(m);
    const items = worklist.content as { kind: string; answer_by: string; status: string; record: Record<string, unknown> }[];
    expect(items.map((i) => i.record.acq_ref_nr)).toEqual(DUE_ORDER);
    const bands = {
      overdue: items.filter((i) => i.status === "overdue").length,
      soon: items.filter((i) => i.status === "due" && i.answer_by <= "2027-03-29").length,
      week: items.filter((i) => i.status === "due" && i.answer_by >= "2027-03-30").length,
    };
    expect(c.mail.text).toContain(`  overdue: ${bands.overdue}\n  due today to 2 days ahead: ${bands.soon}\n  due in 3 to 7 days: ${bands.week}\n`);
    // New: the records of the files imported after the user was made (file date 2027-03-26 here).
    const fileOf = { ...shops, file_date_from: "2027-03-26", file_date_to: "2027-03-26", per_page: 100 };
    const [chargebacks, cases] = await Promise.all([api("chargeback", fileOf), api("pre_arbitration", fileOf)]);
    expect(chargebacks.totalElements + cases.totalElements).toBe(n);
    expect(c.mail.text).toContain(`Chargebacks: ${chargebacks.totalElements}\n`);
    const cents = (v: unknown) => Math.round(Number(v) * 100);
    const sum = (rows: Record<string, unknown>[], ccy: string, rev: boolean) => rows.filter((r) => r.chb_ccy === ccy && (r.rev_indicator === "R") === rev).reduce((s, r) => s + cents(r.chb_amount), 0);
    const money = (minor: number) => (minor / 100).toFixed(2);
    expect(c.mail.text).toContain(`EUR ${money(sum(chargebacks.content, "EUR", false))} (reversals: EUR ${money(sum(chargebacks.content, "EUR", true))})`);
    expect(c.mail.text).toContain(`USD ${money(sum(chargebacks.content, "USD", false))} (reversals: USD ${money(sum(chargebacks.content, "USD", true))})`);
    // Each listed dispute's link opens its record in the drawer: the key the dashboard makes of
    // the record the API answers (components/disputes/use-open-record.ts).
    const byArn = { ...shops, acq_ref_nrs: DUE_ORDER, per_page: 100 };
    const keys = new Map<string, string>();
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      for (const r of (await api(kind, byArn)).content) {
        const fields = FIELDS_BY_KIND[kind].map((d) => d.name);
        keys.set(`${KINDS[kind].pagePath} ${String(r.acq_ref_nr)}`, serializeRecordKey({ fileDate: String(r.file_date), acqRefNr: String(r.acq_ref_nr), fingerprint: recordFingerprint(r, fields) }));
      }
    }
    const links = [...c.mail.text!.matchAll(/ARN (\S+) .*\n {4}(\S+)/g)].map((m) => [m[1], new URL(m[2])] as const);
    expect(links.map(([arn]) => arn)).toEqual(DUE_ORDER);
    for (const [arn, link] of links) expect(link.searchParams.get("open"), arn).toBe(keys.get(`${link.pathname} ${arn}`));
  });

  it("the List-Unsubscribe link of a digest `digest run` sent turns that user's digests off at a running server (one-click POST, no cookie)", async () => {
    const ny = catcher.to("ny@example.test").at(-1)!;
    const link = new URL(header(ny, "list-unsubscribe")!.slice(1, -1));
    expect(link.origin).toBe(APP_URL);
    const res = await fetch(`${servers[0].url}${link.pathname}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(200);
    const after = await mailUserByEmail(db.db, "ny@example.test");
    expect(after.settings).toMatchObject({ digest: "off", zone: "America/New_York", at: "08:00", alerts: false });
  });

  it("a later digest counts only the records imported since the previous one", async () => {
    const before = catcher.to(CONTENT_USER).length;
    const run = await digestRun("2027-11-01T08:00:00Z");
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The running server may have claimed and sent it first: either way it arrives once.
    const next = await until("the content user's digest", () => catcher.to(CONTENT_USER)[before], 5_000);
    // ARN-C1-NEXT of the file of 2027-03-27; nothing is due any more in November.
    expect(next.mail.subject).toBe("Disputes: 1 new, 0 due within 7 days");
    expect(next.mail.text).toMatch(/ {2}Chargebacks: 1\n {4}shop c1: 1\n {4}EUR 2\.00 \(reversals: EUR 0\.00\)\n/);
    expect(digestDate(next)).toBe("2027-11-01");
  });

  it("two servers on one database send each message once", async () => {
    servers.push(await startServer(env));
    catcher.delayMs = 150;
    const users = Object.keys(USERS).filter((e) => /^m\d@/.test(e));
    const dates = ["20270328", "20270329", "20270330"];
    // A refused file (a bad amount in its last row) stores no alert; the others commit theirs.
    const refused = writeCsv("CHB_20270331.csv", "chargeback", [chb("multi", "ARN-MULTI-REFUSED", "2027-03-21", "1.00"), chb("multi", "ARN-MULTI-BAD", "2027-03-21", "lots")]);
    const result = await importFiles([...dates.map((d) => writeCsv(`CHB_${d}.csv`, "chargeback", [chb("multi", `ARN-MULTI-${d}`, "2027-03-21", "1.00")])), refused]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/CHB_20270331\.csv: rejected/);
    const expected = users.length * dates.length;
    const isMulti = (c: Caught) => c.to.some((t) => users.includes(t));
    await until("every alert", () => catcher.attempts.filter(isMulti).length >= expected, 20_000);
    // A second send would come from a second claim, at the next polls.
    await sleep(POLL_SLACK_MS + 500);
    catcher.delayMs = 0;
    const sent = catcher.attempts.filter(isMulti);
    expect(sent).toHaveLength(expected);
    expect(sent.every((c) => c.answer === 250)).toBe(true);
    expect(new Set(sent.map((c) => c.messageId)).size).toBe(expected);
    for (const user of users) expect(catcher.to(user).map((c) => c.mail.subject).sort()).toEqual(dates.map((d) => `New chargebacks: 1 in the file of ${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`));
    const rows = (await mailList()).filter((m) => users.includes(m.USER));
    expect(rows).toHaveLength(expected);
    expect(rows.every((m) => m.STATE === "delivered" && m.ATTEMPTS === "1")).toBe(true);
  });
});
