import type { Logger } from "pino";
import { errorFields, log } from "@/lib/log";

/**
 * Background work (docs/architecture.md, "Background work"): every periodic job of a server runs
 * on a Runner. A job is a name, a pause and a function for one round; the runner owns the rest:
 *
 * - the timer, set again only when a round has finished, so rounds never overlap;
 * - problems logged once: one line when a job starts failing (with its name) and one when it
 *   works again, not one per round;
 * - the stop: no new round; the round and the work it started (`drain`) may finish within a bound,
 *   then the job's AbortSignal aborts them and the runner waits a moment more; then `close`.
 *
 * The production server starts its jobs through `startJob` and stops every one of them on SIGTERM
 * (`stopJobs`, server/main.ts). This file imports only the log, so that a job of any layer (the
 * replica monitor of lib/data included) can run on it.
 */

export interface Job {
  /** how the logs name it: "webhook dispatcher" */
  name: string;
  /** the pause between the end of one round and the start of the next */
  everyMs: number;
  /** One round. */
  run(signals: RoundSignals): Promise<void>;
  /** Settles when the work rounds started and left running (attempts in flight) has ended. */
  drain?(): Promise<void>;
  /** After the last round: writes what is left and closes connections (bounded by the runner). */
  close?(): Promise<void>;
  /** How a failed round is logged; null: an expected condition, logged at debug only. Default: `defaultProblem`. */
  problemOf?(err: unknown): Problem | null;
}

export interface RoundSignals {
  /** aborts when a stop begins: start nothing new */
  stop: AbortSignal;
  /** aborts when the stop's bound has passed: end what still runs */
  abort: AbortSignal;
}

/** A kind of failure: rounds failing with the same `key` in a row are logged once. */
export interface Problem {
  key: string;
  level: "warn" | "error";
  /** what fails, without the job's name: "the database is unavailable" */
  message: string;
}

/** Without a job's own `problemOf`: every failure is one kind of error. */
export const defaultProblem = (): Problem => ({ key: "error", level: "error", message: "failed" });

/** After a stop's bound, aborted work gets this long to end. */
export const ABORT_GRACE_MS = 1_000;
/** `close` never holds a stop up longer than this (a database that hangs). */
export const CLOSE_BOUND_MS = 2_000;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** True when `work` settled within `ms`. */
export const within = (work: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([work.then(
    () => true,
    () => true,
  ), sleep(ms).then(() => false)]);

export class Runner {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly abort = new AbortController();
  private problem = "";

  /** `logger`: where problems go (the process's log; a test reads its own) */
  constructor(
    readonly job: Job,
    private readonly logger: Logger = log,
  ) {}

  start(delayMs = 0): void {
    this.schedule(delayMs);
  }

  private schedule(ms: number) {
    if (this.stopping.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.round = this.runRound().finally(() => {
        this.round = undefined;
        this.schedule(this.job.everyMs);
      });
    }, ms);
    this.timer.unref();
  }

  private async runRound() {
    try {
      await this.job.run({ stop: this.stopping.signal, abort: this.abort.signal });
      this.note(undefined);
    } catch (err) {
      this.note(err);
    }
  }

  private note(err: unknown) {
    const problem = err === undefined ? null : this.job.problemOf ? this.job.problemOf(err) : defaultProblem();
    if (err !== undefined && problem === null) {
      this.logger.debug({ job: this.job.name, ...errorFields(err) }, `${this.job.name}: busy; trying again`);
      return;
    }
    const key = problem?.key ?? "";
    if (key === this.problem) return;
    this.problem = key;
    if (!problem) this.logger.info({ job: this.job.name }, `${this.job.name}: working again`);
    else this.logger[problem.level]({ job: this.job.name, ...errorFields(err) }, `${this.job.name}: ${problem.message}; trying again every ${seconds(this.job.everyMs)}`);
  }

  /**
   * Starts no new round; lets the round and its work finish within `timeoutMs`, then aborts them
   * (ABORT_GRACE_MS more); then closes the job. True when the work had ended; false when it was
   * still running (and the job was not closed under it).
   */
  async stop(timeoutMs: number): Promise<boolean> {
    this.stopping.abort();
    clearTimeout(this.timer);
    const drained = (async () => {
      await this.round;
      await this.job.drain?.();
    })();
    let ended = await within(drained, timeoutMs);
    if (!ended) {
      this.abort.abort();
      ended = await within(drained, ABORT_GRACE_MS);
    }
    if (ended && this.job.close) await within(this.job.close(), CLOSE_BOUND_MS);
    return ended;
  }
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/**
 * The jobs running in this process, by name. On globalThis under one symbol, because the
 * production server (server/main.ts) and what Next bundles (instrumentation.ts, the routes) are
 * separate module instances of this file.
 */
const REGISTRY = Symbol.for("dispute-review.background-jobs");
type Registry = Map<string, Runner>;
const registry = (): Registry => ((globalThis as { [REGISTRY]?: Registry })[REGISTRY] ??= new Map());

/** Starts the job `make` gives (its first round after `delayMs`), once per name in this process; else the one running under that name. */
export function startJob(name: string, make: () => Job, delayMs = 0): Runner {
  const running = registry().get(name);
  if (running) return running;
  const runner = new Runner(make());
  registry().set(name, runner);
  runner.start(delayMs);
  return runner;
}

/** The runner of this name, if it was started in this process. */
export function runningJob(name: string): Runner | undefined {
  return registry().get(name);
}

/** Stops every job of this process at once, each within `timeoutMs` (and the aborts and closes after it). */
export async function stopJobs(timeoutMs: number): Promise<void> {
  const runners = [...registry().entries()];
  await Promise.all(
    runners.map(async ([name, runner]) => {
      try {
        const ended = await runner.stop(timeoutMs);
        if (!ended) log.warn({ job: name, timeout_ms: timeoutMs }, `${name}: still running when the stop's time was up`);
      } catch (err) {
        log.warn({ job: name, ...errorFields(err) }, `${name}: stopping failed`);
      }
      registry().delete(name);
    }),
  );
}
