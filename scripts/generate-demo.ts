/**
 * npm run demo:generate -- [--out ./demo-files] [--seed 42] [--chargebacks 5000]
 *   [--pre-arbitrations 800] [--end YYYY-MM-DD] [--start YYYY-MM-DD | --days 120]
 *   [--shops N [--merchants N] [--parents N]] [--every-day]
 * Writes realistic acquirer files; load them with `npm run import -- <out>`. The last file date
 * defaults to today's date in UTC, so pass --end for byte-identical files on another day.
 * --shops replaces the 15 demo shops by shop-0001 ... under MID0000001 ... under PM-0001 ...;
 * --every-day writes a chargeback file for every calendar day, not only business days.
 */
import { generateDemoFiles } from "@/lib/demo/generate";
import { isCalendarDate } from "@/lib/schemas/search";

const USAGE =
  "usage: npm run demo:generate -- [--out <dir>] [--seed <n>] [--chargebacks <n>] [--pre-arbitrations <n>] [--end YYYY-MM-DD] [--start YYYY-MM-DD | --days <n>] [--shops <n> [--merchants <n>] [--parents <n>]] [--every-day]";
const FLAGS = new Set(["out", "seed", "chargebacks", "pre-arbitrations", "end", "start", "days", "shops", "merchants", "parents"]);
const SWITCHES = new Set(["every-day"]);

function parseFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (!argv[i].startsWith("--") || !(FLAGS.has(name) || SWITCHES.has(name))) throw new Error(`unknown argument ${argv[i]}\n${USAGE}`);
    if (flags.has(name)) throw new Error(`--${name} is given twice`);
    if (SWITCHES.has(name)) {
      flags.set(name, "");
      continue;
    }
    if (argv[i + 1] === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, argv[++i]);
  }
  return flags;
}

function whole(flags: Map<string, string>, name: string, min: number): number | undefined {
  const raw = flags.get(name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return Number(raw);
}

function date(flags: Map<string, string>, name: string): string | undefined {
  const raw = flags.get(name);
  if (raw !== undefined && !isCalendarDate(raw)) throw new Error(`--${name} must be a real date YYYY-MM-DD`);
  return raw;
}

try {
  const flags = parseFlags(process.argv.slice(2));
  if (flags.has("start") && flags.has("days")) throw new Error("give --start or --days, not both");
  if (!flags.has("shops") && (flags.has("merchants") || flags.has("parents"))) throw new Error("--merchants and --parents need --shops");
  const out = flags.get("out") ?? "./demo-files";
  const started = Date.now();
  const result = generateDemoFiles({
    out,
    seed: whole(flags, "seed", 0),
    chargebacks: whole(flags, "chargebacks", 0),
    preArbitrations: whole(flags, "pre-arbitrations", 0),
    end: date(flags, "end"),
    start: date(flags, "start"),
    days: whole(flags, "days", 1),
    shops: whole(flags, "shops", 1),
    merchants: whole(flags, "merchants", 1),
    parents: whole(flags, "parents", 1),
    everyDay: flags.has("every-day"),
  });
  console.log(`wrote ${result.files.length} files to ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`demo:generate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
