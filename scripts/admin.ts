/**
 * npm run admin -- <command>: API shop credentials and dashboard users (CONTRACT 7).
 *   shop add <shop_code> (--password <pw> | --password-stdin) [--access <code>,<code>...]
 *   shop list
 *   user add <email> (--password <pw> | --password-stdin) --access <code>,<code>...
 *   user list
 */
import { createShop, createUser, listShops, listUsers } from "@/lib/auth/accounts";
import { AccountError, splitAccessOption } from "@/lib/auth/access";
import { openDatabase } from "@/lib/data/db";

const USAGE = `usage: npm run admin -- <command>
  shop add <shop_code> --password <pw> [--access <code>,<code>...]
  shop list
  user add <email> --password <pw> --access <code>,<code>...
  user list
--password-stdin reads the password from standard input instead of --password.`;

class UsageError extends Error {}

interface Parsed {
  positional: string[];
  options: Map<string, string | true>;
}

const VALUE_OPTIONS = new Set(["--password", "--access"]);
const FLAG_OPTIONS = new Set(["--password-stdin"]);

function parseArgs(args: string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith("--")) {
      const [name, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
      if (options.has(name)) throw new UsageError(`${name} is given twice`);
      if (VALUE_OPTIONS.has(name)) {
        const value = inline ?? args[++i];
        if (value === undefined) throw new UsageError(`${name} needs a value`);
        options.set(name, value);
      } else if (FLAG_OPTIONS.has(name) && inline === undefined) {
        options.set(name, true);
      } else {
        throw new UsageError(`unknown option ${name}`);
      }
    } else {
      positional.push(arg);
    }
  }
  return { positional, options };
}

async function readStdinPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0];
}

async function password(options: Parsed["options"]): Promise<string> {
  const given = options.get("--password");
  const fromStdin = options.get("--password-stdin");
  if (given !== undefined && fromStdin) throw new UsageError("give either --password or --password-stdin, not both");
  if (fromStdin) return readStdinPassword();
  if (typeof given === "string") return given;
  throw new UsageError("a password is needed: --password <pw> or --password-stdin");
}

function allowOnly(options: Parsed["options"], allowed: string[]) {
  for (const name of options.keys()) if (!allowed.includes(name)) throw new UsageError(`${name} does not apply to this command`);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((r) => r[col].length)));
  return rows.map((r) => r.map((cell, col) => cell.padEnd(widths[col])).join("  ").trimEnd()).join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help") {
    console.log(USAGE);
    return argv.length === 0 ? 1 : 0;
  }
  const { positional, options } = parseArgs(argv);
  const [entity, action, ...rest] = positional;
  const command = `${entity ?? ""} ${action ?? ""}`.trim();
  if (!["shop add", "shop list", "user add", "user list"].includes(command)) throw new UsageError(`unknown command "${command}"`);
  const expectedArgs = action === "add" ? 1 : 0;
  if (rest.length !== expectedArgs) {
    throw new UsageError(action === "add" ? `${command} takes exactly one ${entity === "shop" ? "shop code" : "e-mail"}` : `${command} takes no arguments`);
  }

  const access = options.get("--access");
  // Read the password before opening the database: a usage error should not migrate anything.
  const pw = action === "add" ? await password(options) : "";
  const accessList = typeof access === "string" ? splitAccessOption(access) : undefined;
  allowOnly(options, action === "add" ? ["--password", "--password-stdin", "--access"] : []);

  const { db, close } = await openDatabase();
  try {
    if (command === "shop add") {
      const shop = await createShop(db, { shopCode: rest[0], password: pw, access: accessList });
      console.log(`shop ${shop.shopCode} added; access: ${shop.access.join(", ")}`);
    } else if (command === "user add") {
      if (!accessList) throw new UsageError("user add needs --access <code>,<code>...");
      const user = await createUser(db, { email: rest[0], password: pw, access: accessList });
      console.log(`user ${user.email} added; access: ${user.access.join(", ")}`);
    } else if (command === "shop list") {
      const shops = await listShops(db);
      console.log(shops.length ? table([["SHOP", "ACCESS"], ...shops.map((s) => [s.shopCode, s.access.join(",")])]) : "no shops");
    } else {
      const users = await listUsers(db);
      console.log(users.length ? table([["E-MAIL", "ACCESS"], ...users.map((u) => [u.email, u.access.join(",")])]) : "no users");
    }
  } finally {
    await close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof AccountError) {
      console.error(`admin: ${err.message}`);
      if (err instanceof UsageError) console.error("run `npm run admin -- help` for usage");
    } else {
      console.error(`admin: ${err instanceof Error ? err.message : String(err)}`);
    }
    process.exit(1);
  },
);
