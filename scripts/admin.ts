/**
 * npm run admin -- <command>: API shop credentials and dashboard users (docs/api.md, "Admin command").
 *   shop add <shop_code> (--password <pw> | --password-stdin) [--access <code>,<code>...]
 *   shop list
 *   user add <email> (--password <pw> | --password-stdin) --access <code>,<code>...
 *   user list
 *   user mail <email> [--digest daily|weekly|off] [--at HH:MM] [--zone <IANA zone>] [--alerts on|off]
 *   webhook add <shop_code> <url> | webhook list | webhook remove <id>
 *   mail list
 *   digest run [--at <ISO 8601 instant>]
 *   backup <path>
 * Bad input prints one line on stderr and exits 1; nothing is written then.
 */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { AccountError, checkPassword, createShop, createUser, listShops, normaliseEmail } from "@/lib/auth/accounts";
import { checkShopCode } from "@/lib/auth/access";
import { keyFilePath } from "@/lib/auth/secrets";
import { ConfigError, databaseTarget, mailConfig } from "@/lib/config";
import { BackupError, backupPaths, backupSqlite, refuseTakenPaths } from "@/lib/data/connection/backup";
import { isDatabaseUnavailable, openDatabase } from "@/lib/data/connection/db";
import { sendNow } from "@/lib/mail/dispatcher";
import { composeDueDigests } from "@/lib/mail/digests";
import { changeMailSettings, mailUserByEmail, mailUsers } from "@/lib/mail/settings";
import { listMessages } from "@/lib/mail/store";
import { parseMailSettingsPatch } from "@/lib/schemas/mail-settings";
import { addEndpoint, checkEndpointUrl, type EndpointSummary, listEndpoints, removeEndpoint, WebhookError } from "@/lib/webhooks/endpoints";

const USAGE = `usage: npm run admin -- <command>

  shop add <shop_code> --password <pw> [--access <code>,<code>...]
      creates an API credential; the access list always includes the shop itself
  shop list
      lists shops and their access lists (never passwords)
  user add <email> --password <pw> --access <code>,<code>...
      creates a dashboard user
  user list
      lists users, their access lists and mail settings
  user mail <email> [--digest daily|weekly|off] [--at HH:MM] [--zone <IANA zone>] [--alerts on|off]
      changes a user's mail settings (a new user has: --digest daily --at 08:00 --zone UTC --alerts off)
  webhook add <shop_code> <url>
      registers a webhook endpoint (http:// or https://) for a shop credential; its events cover
      the shop's access list. Prints the endpoint id and its signing secret, once
  webhook list
      lists endpoints, their last delivery and failures in a row (never secrets)
  webhook remove <id>
      stops deliveries to an endpoint

  mail list
      lists the stored messages: user, kind (alert, digest), state (pending, retry, delivered,
      failed) and last error
  digest run [--at <ISO 8601 instant>]
      composes the digests due at that instant (default now) and sends them before it exits;
      exit 1 when a message was not accepted. Needs SMTP_URL (without it: says so, exit 0)

  backup <path>
      writes a consistent copy of the SQLite database to <path> (and <name>.state.sqlite beside
      it) while servers and imports run; refuses an existing <path>. Says which key the copy's
      stored secrets need (the same APP_SECRET, or the key file it copies beside <path>).
      On PostgreSQL: use pg_dump or the server's own backups (exit 1)

  --password-stdin   read the password from the first line of standard input instead of --password
  Passwords are at least 8 characters. The database is the one DATABASE_URL names.`;

const HINT = " (npm run admin -- help shows the commands)";

class UsageError extends Error {}

type Options = Map<string, string | true>;

const VALUE_OPTIONS = new Set(["--password", "--access", "--digest", "--at", "--zone", "--alerts"]);
const FLAG_OPTIONS = new Set(["--password-stdin"]);
const COMMANDS = ["shop add", "shop list", "user add", "user list", "user mail", "webhook add", "webhook list", "webhook remove", "mail list", "digest run"];

function parseArgs(args: string[]): { positional: string[]; options: Options } {
  const positional: string[] = [];
  const options: Options = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
      if (!VALUE_OPTIONS.has(name) && !FLAG_OPTIONS.has(name)) throw new UsageError(`unknown option ${name}`);
      if (options.has(name)) throw new UsageError(`${name} is given twice`);
      if (VALUE_OPTIONS.has(name)) {
        const value = inline ?? args[++i];
        if (value === undefined) throw new UsageError(`${name} needs a value`);
        options.set(name, value);
      } else {
        if (inline !== undefined) throw new UsageError(`${name} takes no value`);
        options.set(name, true);
      }
    } else if (/^-[A-Za-z]/.test(arg)) {
      throw new UsageError(`unknown option ${arg}`);
    } else {
      positional.push(arg);
    }
  }
  return { positional, options };
}

/** "a,b, c" -> ["a", "b", "c"]. */
function parseAccess(raw: string): string[] {
  const codes = raw.split(",").map((c) => c.trim());
  if (codes.every((c) => c === "")) throw new UsageError("--access needs at least one shop code");
  for (const code of codes) checkShopCode(code);
  return codes;
}

/** The first line of standard input (a trailing CR is dropped); "" when there is none. */
async function readFirstLine(): Promise<string> {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) return line;
    return "";
  } finally {
    lines.close();
  }
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col])).join("  ").trimEnd()).join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    console.error(USAGE);
    return 1;
  }
  if (argv.length === 1 && ["help", "--help", "-h"].includes(argv[0])) {
    console.log(USAGE);
    return 0;
  }
  const { positional, options } = parseArgs(argv);
  if (positional[0] === "backup") return backupCommand(positional.slice(1), options);
  const [entity, action, ...rest] = positional;
  const command = positional.slice(0, 2).join(" ");
  if (!COMMANDS.includes(command)) throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  if (entity === "webhook") return webhookCommand(action, rest, options);
  if (command === "user mail") return userMailCommand(rest, options);
  if (command === "mail list") return mailListCommand(rest, options);
  if (command === "digest run") return digestRunCommand(rest, options);
  const adding = action === "add";
  const subject = entity === "shop" ? "shop code" : "e-mail address";
  if (adding && rest.length !== 1) throw new UsageError(`${command} takes exactly one ${subject}, got ${rest.length}`);
  if (!adding && rest.length !== 0) throw new UsageError(`${command} takes no arguments`);
  for (const name of options.keys()) {
    if (!adding) throw new UsageError(`${name} does not apply to ${command}`);
  }

  // Everything is checked before the database is opened: bad input migrates and writes nothing.
  const rawAccess = options.get("--access");
  const access = typeof rawAccess === "string" ? parseAccess(rawAccess) : undefined;
  if (command === "user add" && !access) throw new UsageError("user add needs --access <code>,<code>...");
  let password = "";
  if (adding) {
    const given = options.get("--password");
    const fromStdin = options.has("--password-stdin");
    if (given !== undefined && fromStdin) throw new UsageError("give either --password or --password-stdin, not both");
    if (given === undefined && !fromStdin) throw new UsageError(`${command} needs --password <pw> or --password-stdin`);
    password = fromStdin ? await readFirstLine() : String(given);
    if (entity === "shop") checkShopCode(rest[0]);
    else normaliseEmail(rest[0]);
    checkPassword(password);
  }

  const { db, close } = await openDatabase();
  try {
    if (command === "shop add") {
      const shop = await createShop(db, { shopCode: rest[0], password, access });
      console.log(`shop ${shop.shopCode} added; access: ${shop.access.join(", ")}`);
    } else if (command === "user add") {
      const user = await createUser(db, { email: rest[0], password, access: access ?? [] });
      console.log(`user ${user.email} added; access: ${user.access.join(", ")}`);
    } else if (command === "shop list") {
      const shops = await listShops(db);
      console.log(shops.length ? table([["SHOP CODE", "ACCESS"], ...shops.map((s) => [s.shopCode, s.access.join(", ")])]) : "no shops");
    } else {
      const users = await mailUsers(db);
      console.log(
        users.length
          ? table([["E-MAIL", "ACCESS", "DIGEST", "AT", "ZONE", "ALERTS"], ...users.map((u) => [u.email, u.access.join(", "), u.settings.digest, u.settings.at, u.settings.zone, u.settings.alerts ? "on" : "off"])])
          : "no users",
      );
    }
  } finally {
    await close();
  }
  return 0;
}

const ARITY: Record<string, [number, string]> = {
  add: [2, "a shop code and a URL"],
  list: [0, "no arguments"],
  remove: [1, "one endpoint id"],
};

/** docs/api.md, "Webhooks": webhook add <shop_code> <url> | webhook list | webhook remove <id>. */
async function webhookCommand(action: string, args: string[], options: Options): Promise<number> {
  const [count, what] = ARITY[action];
  if (args.length !== count) throw new UsageError(`webhook ${action} takes ${what}, got ${args.length} argument${args.length === 1 ? "" : "s"}`);
  for (const name of options.keys()) throw new UsageError(`${name} does not apply to webhook ${action}`);
  if (action === "add") {
    checkShopCode(args[0]);
    checkEndpointUrl(args[1]);
  }
  const { db, close } = await openDatabase();
  try {
    if (action === "add") {
      const endpoint = await addEndpoint(db, { shopCode: args[0], url: args[1] });
      console.log(`webhook ${endpoint.id} added for shop ${endpoint.shopCode}: ${endpoint.url}`);
      console.log(`signing secret (shown only now): ${endpoint.secret}`);
    } else if (action === "remove") {
      await removeEndpoint(db, args[0]);
      console.log(`webhook ${args[0]} removed; nothing more is sent to it`);
    } else {
      const endpoints = await listEndpoints(db);
      console.log(endpoints.length ? table([["ID", "SHOP", "URL", "STATE", "LAST DELIVERY", "FAILURES IN A ROW", "PENDING", "FAILED"], ...endpoints.map(endpointRow)]) : "no webhook endpoints");
    }
  } finally {
    await close();
  }
  return 0;
}

const MAIL_OPTIONS = ["--digest", "--at", "--zone", "--alerts"];

/** docs/mail.md, "Settings": user mail <email> [--digest ...] [--at ...] [--zone ...] [--alerts ...]. */
async function userMailCommand(args: string[], options: Options): Promise<number> {
  if (args.length !== 1) throw new UsageError(`user mail takes exactly one e-mail address, got ${args.length}`);
  for (const name of options.keys()) if (!MAIL_OPTIONS.includes(name)) throw new UsageError(`${name} does not apply to user mail`);
  const raw: Record<string, unknown> = {};
  for (const name of MAIL_OPTIONS) {
    const value = options.get(name);
    if (value === undefined) continue;
    if (name === "--alerts") {
      if (value !== "on" && value !== "off") throw new UsageError(`--alerts must be on or off, got ${JSON.stringify(value)}`);
      raw.alerts = value === "on";
    } else raw[name.slice(2)] = value;
  }
  // Checked before the database is opened: a bad value changes nothing.
  const parsed = parseMailSettingsPatch(raw);
  if (!parsed.ok) throw new UsageError(parsed.errors.map((e) => `--${e.field} ${e.message}`).join("; "));
  normaliseEmail(args[0]);
  const database = await openDatabase();
  try {
    const user = await mailUserByEmail(database.db, args[0]);
    const settings = await changeMailSettings(database, user.userId, parsed.request);
    console.log(`user ${user.email}: digest ${settings.digest} at ${settings.at} ${settings.zone}; alerts ${settings.alerts ? "on" : "off"}`);
    if (!mailConfig()) console.log("note: SMTP_URL is not set, so no mail is sent");
  } finally {
    await database.close();
  }
  return 0;
}

/** docs/mail.md, "Delivery": mail list. */
async function mailListCommand(args: string[], options: Options): Promise<number> {
  if (args.length !== 0) throw new UsageError("mail list takes no arguments");
  for (const name of options.keys()) throw new UsageError(`${name} does not apply to mail list`);
  const { db, close } = await openDatabase();
  try {
    const when = (ms: number | null) => (ms === null ? "" : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));
    const messages = await listMessages(db);
    console.log(
      messages.length
        ? table([["ID", "USER", "KIND", "STATE", "ATTEMPTS", "CREATED", "SENT", "LAST ERROR"], ...messages.map((m) => [String(m.id), m.email, m.kind, m.state, String(m.attempts), when(m.createdAt), when(m.sentAt), m.lastError ?? ""])])
        : "no messages",
    );
  } finally {
    await close();
  }
  return 0;
}

/** An ISO 8601 instant with a date, a time and a zone (Z or an offset). */
function parseInstant(text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`--at must be an ISO 8601 instant such as 2026-11-25T08:00:00Z or 2026-11-25T08:00+01:00, got ${JSON.stringify(text)}`);
  return ms;
}

/** docs/mail.md, "Digests": digest run [--at <instant>]. */
async function digestRunCommand(args: string[], options: Options): Promise<number> {
  if (args.length !== 0) throw new UsageError("digest run takes no arguments");
  for (const name of options.keys()) if (name !== "--at") throw new UsageError(`${name} does not apply to digest run`);
  const given = options.get("--at");
  const at = given === undefined ? Date.now() : parseInstant(String(given));
  const config = mailConfig();
  if (!config) {
    console.log("SMTP_URL is not set: no digests are composed or sent");
    return 0;
  }
  const database = await openDatabase();
  try {
    const run = await composeDueDigests(database.db, at);
    const sent = await sendNow(database, config, run.messages);
    const quiet = run.claimed - run.messages.length;
    console.log(`digests due at ${new Date(at).toISOString()}: ${run.claimed}; sent ${sent.delivered}, not accepted ${sent.failed}, nothing to say ${quiet}`);
    if (sent.failed > 0) console.error("admin: some digests were not accepted; npm run admin -- mail list shows why");
    for (const { userId, error } of run.failed) console.error(`admin: the digest of user ${userId} could not be composed: ${error instanceof Error ? error.message : String(error)}`);
    return sent.failed > 0 || run.failed.length > 0 ? 1 : 0;
  } finally {
    await database.close();
  }
}

/** docs/backups.md, "Backing up": backup <path>. */
async function backupCommand(args: string[], options: Options): Promise<number> {
  if (args.length !== 1) throw new UsageError(`backup takes exactly one path, got ${args.length}`);
  for (const name of options.keys()) throw new UsageError(`${name} does not apply to backup`);
  const target = databaseTarget();
  if (target.kind === "postgres") {
    console.error("admin: backup copies the embedded SQLite database only; back up PostgreSQL with pg_dump or the server's own backups (docs/backups.md)");
    return 1;
  }
  if (target.file === ":memory:") throw new BackupError("an in-memory database has nothing to back up");
  // Every refusal before the database is opened: nothing is written then.
  refuseTakenPaths(args[0]);
  const [copy] = backupPaths(args[0]);
  const key = keyToCopy(path.dirname(copy));
  const database = await openDatabase();
  try {
    const result = await backupSqlite(database, args[0]);
    console.log(`backup written: ${result.files[0]} (${result.importedFiles} files, ${result.records} records) and ${result.files[1]} (sessions and nonces)`);
  } finally {
    await database.close();
  }
  if (key.kind === "secret") {
    console.log("its stored secrets (shop passwords, webhook secrets) need the same APP_SECRET as this database");
  } else if (key.kind === "copy") {
    fs.copyFileSync(key.from, key.to, fs.constants.COPYFILE_EXCL);
    fs.chmodSync(key.to, 0o600);
    console.log(`its stored secrets need the key file ${key.from}, copied to ${key.to}: keep the two together, and serve the copy without APP_KEY_FILE (or with APP_KEY_FILE=${key.to})`);
  } else if (key.kind === "same") {
    console.log(`its stored secrets need the key file ${key.to}, which is already beside it: keep the two together`);
  } else {
    console.log(`no key file (${key.from}) exists yet, so the database holds no stored secrets`);
  }
  return 0;
}

type KeyPlan = { kind: "secret" } | { kind: "copy"; from: string; to: string } | { kind: "same"; to: string } | { kind: "none"; from: string };

/**
 * What the copy needs to read its stored secrets (lib/auth/secrets.ts): the same APP_SECRET, or the
 * key file, which a restored server looks for beside its database as app.key. A different key
 * already there refuses the backup, before anything is written.
 */
function keyToCopy(dir: string): KeyPlan {
  if (process.env.APP_SECRET) return { kind: "secret" };
  const from = keyFilePath();
  if (!fs.existsSync(from)) return { kind: "none", from };
  const to = path.join(dir, "app.key");
  if (!fs.existsSync(to)) return { kind: "copy", from, to };
  if (path.resolve(to) === path.resolve(from) || fs.readFileSync(to).equals(fs.readFileSync(from))) return { kind: "same", to };
  throw new BackupError(`${to} holds another key than ${from}; back up into another folder`);
}

function endpointRow(e: EndpointSummary): string[] {
  const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const last = e.last ? `${when(e.last.at)} ${e.last.delivered ? "delivered" : "failed"} (${e.last.status ?? e.last.error})` : "never";
  return [e.id, e.shopCode, e.url, e.removedAt === null ? "active" : `removed ${when(e.removedAt)}`, last, String(e.failuresInRow), String(e.pending), String(e.failed)];
}

function describeError(err: unknown): string {
  if (err instanceof UsageError) return err.message + HINT;
  if (err instanceof AccountError || err instanceof ConfigError || err instanceof WebhookError || err instanceof BackupError) return err.message;
  if (isDatabaseUnavailable(err)) {
    const code = (err as { code?: unknown }).code;
    return `the database cannot be reached${typeof code === "string" ? ` (${code})` : ""}; check DATABASE_URL`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0] || "unexpected error";
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`admin: ${describeError(err)}`);
    process.exit(1);
  },
);
