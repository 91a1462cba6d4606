/**
 * npm run admin -- <command>: API shop credentials and dashboard users (docs/api.md, "Admin command").
 *   shop add <shop_code> (--password <pw> | --password-stdin) [--access <code>,<code>...]
 *   shop list
 *   user add <email> (--password <pw> | --password-stdin) --access <code>,<code>...
 *   user list
 *   webhook add <shop_code> <url> | webhook list | webhook remove <id>
 * Bad input prints one line on stderr and exits 1; nothing is written then.
 */
import readline from "node:readline";
import { AccountError, checkPassword, createShop, createUser, listShops, listUsers, normaliseEmail } from "@/lib/auth/accounts";
import { checkShopCode } from "@/lib/auth/access";
import { ConfigError } from "@/lib/config";
import { isDatabaseUnavailable, openDatabase } from "@/lib/data/db";
import { addEndpoint, checkEndpointUrl, type EndpointSummary, listEndpoints, removeEndpoint, WebhookError } from "@/lib/webhooks/endpoints";

const USAGE = `usage: npm run admin -- <command>

  shop add <shop_code> --password <pw> [--access <code>,<code>...]
      creates an API credential; the access list always includes the shop itself
  shop list
      lists shops and their access lists (never passwords)
  user add <email> --password <pw> --access <code>,<code>...
      creates a dashboard user
  user list
      lists users and their access lists
  webhook add <shop_code> <url>
      registers a webhook endpoint (http:// or https://) for a shop credential; its events cover
      the shop's access list. Prints the endpoint id and its signing secret, once
  webhook list
      lists endpoints, their last delivery and failures in a row (never secrets)
  webhook remove <id>
      stops deliveries to an endpoint

  --password-stdin   read the password from the first line of standard input instead of --password
  Passwords are at least 8 characters. The database is the one DATABASE_URL names.`;

const HINT = " (npm run admin -- help shows the commands)";

class UsageError extends Error {}

type Options = Map<string, string | true>;

const VALUE_OPTIONS = new Set(["--password", "--access"]);
const FLAG_OPTIONS = new Set(["--password-stdin"]);
const COMMANDS = ["shop add", "shop list", "user add", "user list", "webhook add", "webhook list", "webhook remove"];

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
  const [entity, action, ...rest] = positional;
  const command = positional.slice(0, 2).join(" ");
  if (!COMMANDS.includes(command)) throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  if (entity === "webhook") return webhookCommand(action, rest, options);
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
      const users = await listUsers(db);
      console.log(users.length ? table([["E-MAIL", "ACCESS"], ...users.map((u) => [u.email, u.access.join(", ")])]) : "no users");
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

function endpointRow(e: EndpointSummary): string[] {
  const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const last = e.last ? `${when(e.last.at)} ${e.last.delivered ? "delivered" : "failed"} (${e.last.status ?? e.last.error})` : "never";
  return [e.id, e.shopCode, e.url, e.removedAt === null ? "active" : `removed ${when(e.removedAt)}`, last, String(e.failuresInRow), String(e.pending), String(e.failed)];
}

function describeError(err: unknown): string {
  if (err instanceof UsageError) return err.message + HINT;
  if (err instanceof AccountError || err instanceof ConfigError || err instanceof WebhookError) return err.message;
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
