import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ABORT_GRACE_MS, type Job, type Problem, Runner, runningJob, startJob, stopJobs } from "@/lib/background/runner";

/**
 * The background runner (docs/architecture.md, "Background work") with real timers and jobs: rounds
 * never overlap and wait the pause after each other, a stop waits for or aborts the work in flight
 * within its bound, problems are logged once a streak, and the process's registry stops every job.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real pino logger whose lines the test reads. */
function capturedLog() {
  const lines: { level: string; msg: string; job?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  const logger = pino({ level: "debug", formatters: { level: (label) => ({ level: label }) } }, stream);
  return { logger, lines };
}

describe("background runner", () => {
  it("never overlaps rounds, and waits its pause after each round has finished", async () => {
    let running = 0;
    let most = 0;
    const rounds: { start: number; end: number }[] = [];
    const runner = new Runner({
      name: "slow job",
      everyMs: 20,
      async run() {
        running++;
        most = Math.max(most, running);
        const start = Date.now();
        await sleep(50);
        rounds.push({ start, end: Date.now() });
        running--;
      },
    });
    runner.start();
    await sleep(400);
    await runner.stop(1_000);
    expect(most).toBe(1);
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    // A round lasts longer than the pause; a timer that did not wait for the round would start the next one inside it.
    for (let i = 1; i < rounds.length; i++) expect(rounds[i].start - rounds[i - 1].end).toBeGreaterThanOrEqual(19);
  });

  it("on stop, starts no new round, waits for the round and the work it left running, then closes", async () => {
    const events: string[] = [];
    let release!: () => void;
    const attempt = new Promise<void>((resolve) => (release = resolve));
    const runner = new Runner({
      name: "drained job",
      everyMs: 10,
      async run({ stop }) {
        events.push(`round stop=${stop.aborted}`);
        await sleep(30);
      },
      drain: () => attempt.then(() => void events.push("drained")),
      close: async () => void events.push("closed"),
    });
    runner.start();
    await sleep(15);
    const started = Date.now();
    const stopping = runner.stop(2_000);
    setTimeout(release, 200);
    expect(await stopping).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(events.filter((e) => e.startsWith("round"))).toEqual(["round stop=false"]);
    expect(events.slice(-2)).toEqual(["drained", "closed"]);
  });

  it("aborts work still running at the stop's bound, and waits for it to end", async () => {
    let abortedAfter = -1;
    let closed = false;
    const started = Date.now();
    const runner = new Runner({
      name: "abortable job",
      everyMs: 10,
      run: ({ abort }) =>
        new Promise<void>((resolve) =>
          abort.addEventListener("abort", () => {
            abortedAfter = Date.now() - started;
            resolve();
          }),
        ),
      close: async () => void (closed = true),
    });
    runner.start();
    await sleep(20);
    expect(await runner.stop(150)).toBe(true);
    expect(abortedAfter).toBeGreaterThanOrEqual(160);
    expect(abortedAfter).toBeLessThan(600);
    expect(closed).toBe(true);
  });

  it("gives up on work that ignores the abort after a grace, without closing under it", async () => {
    let closed = false;
    const runner = new Runner({ name: "stubborn job", everyMs: 10, run: () => sleep(10_000).then(() => undefined), close: async () => void (closed = true) });
    runner.start();
    await sleep(20);
    const started = Date.now();
    expect(await runner.stop(100)).toBe(false);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(100 + ABORT_GRACE_MS - 20);
    expect(took).toBeLessThan(100 + ABORT_GRACE_MS + 500);
    expect(closed).toBe(false);
  });

  it("logs a problem once when it begins, once when another begins, and once at the recovery, with the job's name", async () => {
    const { logger, lines } = capturedLog();
    // Each round's result in turn: 3 failures of one kind, 2 of another, 2 good rounds, 1 busy, 1 failure.
    const script = ["a", "a", "a", "b", "b", "ok", "ok", "busy", "a", "ok"];
    let round = 0;
    const problemOf = (err: unknown): Problem | null => {
      const kind = (err as Error).message;
      return kind === "busy" ? null : { key: kind, level: kind === "a" ? "warn" : "error", message: `kind ${kind}` };
    };
    // A class's method that reads its own fields, handed over as a Job.
    class FlakyJob implements Job {
      readonly name = "flaky job";
      readonly everyMs = 5;
      private readonly prefix = "kind";
      async run() {
        const step = script[round++] ?? "ok";
        if (step !== "ok") throw new Error(step);
      }
      problemOf(err: unknown): Problem | null {
        const problem = problemOf(err);
        return problem && { ...problem, message: `${this.prefix} ${problem.key}` };
      }
    }
    const job: Job = new FlakyJob();
    const runner = new Runner(job, logger);
    runner.start();
    while (round < script.length + 2) await sleep(5);
    await runner.stop(1_000);
    const seen = lines.map((l) => [l.level, l.msg, l.job]);
    expect(seen).toEqual([
      ["warn", "flaky job: kind a; trying again every 5 ms", "flaky job"],
      ["error", "flaky job: kind b; trying again every 5 ms", "flaky job"],
      ["info", "flaky job: working again", "flaky job"],
      ["debug", "flaky job: busy; trying again", "flaky job"],
      ["warn", "flaky job: kind a; trying again every 5 ms", "flaky job"],
      ["info", "flaky job: working again", "flaky job"],
    ]);
  });

  it("keeps one job per name in the process, and stops every job of the registry", async () => {
    const rounds = { one: 0, two: 0 };
    let closed = 0;
    const make = (name: "one" | "two") => (): Job => ({
      name,
      everyMs: 10,
      async run() {
        rounds[name]++;
        await sleep(5);
      },
      close: async () => void closed++,
    });
    const one = startJob("registry test one", make("one"));
    expect(startJob("registry test one", make("two"))).toBe(one);
    startJob("registry test two", make("two"));
    expect(runningJob("registry test one")).toBe(one);
    await sleep(60);
    await stopJobs(1_000);
    expect(closed).toBe(2);
    expect(runningJob("registry test one")).toBeUndefined();
    expect(runningJob("registry test two")).toBeUndefined();
    const after = { ...rounds };
    expect(after.one).toBeGreaterThan(0);
    expect(after.two).toBeGreaterThan(0);
    await sleep(50);
    expect(rounds).toEqual(after);
  });
});
