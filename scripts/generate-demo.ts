/**
 * npm run demo:generate -- [--out ./demo-files] [--seed 42] [--chargebacks 5000]
 *                          [--pre-arbitrations 830] [--end YYYY-MM-DD] [--days 120]
 * Writes realistic acquirer files; load them with `npm run import -- <out>`.
 */
import { generateDemoFiles } from "@/lib/demo/generate";
import { isCalendarDate } from "@/lib/schemas/search";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function whole(name: string, min: number): number | undefined {
  const raw = option(name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return Number(raw);
}

try {
  const end = option("end");
  if (end !== undefined && !isCalendarDate(end)) throw new Error("--end must be a date YYYY-MM-DD");
  const started = Date.now();
  const result = generateDemoFiles({
    out: option("out") ?? "./demo-files",
    seed: whole("seed", 0),
    chargebacks: whole("chargebacks", 0),
    preArbitrations: whole("pre-arbitrations", 0),
    end,
    days: whole("days", 1),
  });
  console.log(`wrote ${result.files.length} files to ${option("out") ?? "./demo-files"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`demo:generate: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
