/**
 * The benchmark's acquirer files, made once per run by the demo generator and shared by the
 * backends: a history of daily files, one single large chargeback file, and the file imported
 * while reads run (dated the day after the history).
 */
import { addDays as shiftDate } from "@/lib/domain/calendar";
import fs from "node:fs";
import path from "node:path";
import { type DemoShop, generateDemoFiles } from "@/lib/demo/generate";
import { measured } from "./measure";
import type { BenchOptions } from "./options";

export interface BenchFiles {
  /** every file of the history, chargebacks and cases, in import order */
  history: string[];
  historyBytes: number;
  /** all --chargebacks chargebacks in one CHB file */
  single: string;
  /** the CHB file imported while reads run */
  live: string;
  shops: DemoShop[];
  firstDate: string;
  lastDate: string;
  generationSeconds: number;
}

/** The history ends on a fixed calendar date (options.ts), so every shifted date is one too. */
export const addDays = (date: string, days: number): string => shiftDate(date, days)!;

/** One CHB file of `chargebacks` records on `date`, in `dir`. */
function oneFile(opts: BenchOptions, dir: string, date: string, chargebacks: number, seed: number): string {
  const { files } = generateDemoFiles({
    out: dir,
    seed,
    chargebacks,
    preArbitrations: 0,
    start: date,
    end: date,
    shops: opts.shops,
    merchants: opts.merchants,
    parents: opts.parents,
    everyDay: true,
  });
  const chb = files.filter((f) => path.basename(f).startsWith("CHB_"));
  for (const f of files) if (!chb.includes(f)) fs.rmSync(f);
  if (chb.length !== 1) throw new Error(`expected one chargeback file in ${dir}, found ${chb.length}`);
  return chb[0];
}

export async function generateBenchFiles(opts: BenchOptions, dir: string): Promise<BenchFiles> {
  const firstDate = addDays(opts.end, -(opts.days - 1));
  const run = await measured(async () => {
    const history = generateDemoFiles({
      out: path.join(dir, "history"),
      seed: opts.seed,
      chargebacks: opts.chargebacks,
      preArbitrations: opts.cases,
      start: firstDate,
      end: opts.end,
      shops: opts.shops,
      merchants: opts.merchants,
      parents: opts.parents,
      everyDay: true,
    });
    // Import order: by name, as `npm run import -- <folder>` would (CHB_ before PREARB_).
    const files = [...history.files].sort();
    return {
      history: files,
      shops: history.shops,
      single: opts.single > 0 ? oneFile(opts, path.join(dir, "single"), opts.end, opts.single, opts.seed + 1) : "",
      live: oneFile(opts, path.join(dir, "live"), addDays(opts.end, 1), opts.liveImport, opts.seed + 2),
    };
  });
  const { history, shops, single, live } = run.result;
  return {
    history,
    historyBytes: history.reduce((n, f) => n + fs.statSync(f).size, 0),
    single,
    live,
    shops,
    firstDate,
    lastDate: opts.end,
    generationSeconds: run.seconds,
  };
}
