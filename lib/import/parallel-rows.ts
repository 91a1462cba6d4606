import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { RecordKind } from "@/lib/domain/fields";
import { isProductionServer } from "@/lib/server-state";
import { type Checked, validatedRows } from "./validated-rows";

/**
 * validatedRows on a second thread: parsing and checking a file costs about as much as writing
 * it, so the import reads the next batch while the database takes the last one. The same
 * batches in the same order as validatedRows on this thread (which IMPORT_THREADS=0 keeps).
 * One thread serves every file of a command; it keeps the process alive only during a file.
 */
const AHEAD = 4;

type Reply = { job: number; batch?: Checked[]; done?: true; error?: { message: string; code?: string } };

let worker: Worker | undefined;
let nextJob = 1;
const listeners = new Map<number, (reply: Reply | { failed: Error }) => void>();

/**
 * The thread's code. A server's import (the inbox) runs inside Next's bundle, where this module's
 * own folder is not at hand: it loads the bundle `next build` makes (scripts/build-worker.mjs) from
 * the project root, where `npm start` runs. The commands load the TypeScript source through tsx.
 */
function workerEntry(): string {
  if (isProductionServer()) return path.resolve(/* turbopackIgnore: true */ process.cwd(), ".worker/parse.worker.cjs");
  return path.join(/* turbopackIgnore: true */ path.dirname(fileURLToPath(import.meta.url)), "parse.worker.mjs");
}

function parseThread(): Worker {
  if (worker) return worker;
  const w = new Worker(/* turbopackIgnore: true */ workerEntry());
  w.unref();
  w.on("message", (reply: Reply) => listeners.get(reply.job)?.(reply));
  const fail = (err: Error) => {
    if (worker === w) worker = undefined;
    for (const listener of listeners.values()) listener({ failed: err });
  };
  w.on("error", fail);
  w.on("exit", (code) => fail(new Error(`the import's parsing thread stopped (${code})`)));
  worker = w;
  return w;
}

export function checkedBatches(file: string, kind: RecordKind): AsyncGenerator<Checked[]> {
  if (process.env.IMPORT_THREADS === "0") return validatedRows(file, kind);
  if (!isAhead(file, kind)) dropReadAhead();
  const job = ahead ?? startJob(file, kind);
  ahead = undefined;
  return batchesOf(job);
}

/**
 * Starts reading and checking `file` now, on the parsing thread, while this thread still writes
 * the file before it: a daily file's parse then overlaps the previous file's summaries instead of
 * following them. The next `checkedBatches` of the same file takes it over; any other call, or
 * `dropReadAhead`, stops it. Only `AHEAD` batches are read ahead.
 */
export function readAhead(file: string, kind: RecordKind): void {
  if (process.env.IMPORT_THREADS === "0" || isAhead(file, kind)) return;
  dropReadAhead();
  ahead = startJob(file, kind);
}

/** Stops a file read ahead that nobody took over. */
export function dropReadAhead(): void {
  if (!ahead) return;
  stopJob(ahead);
  ahead = undefined;
}

interface Job {
  id: number;
  file: string;
  kind: RecordKind;
  worker: Worker;
  queue: (Reply | { failed: Error })[];
  wake?: () => void;
}

let ahead: Job | undefined;

const isAhead = (file: string, kind: RecordKind) => ahead?.file === file && ahead.kind === kind;

function startJob(file: string, kind: RecordKind): Job {
  const w = parseThread();
  const job: Job = { id: nextJob++, file, kind, worker: w, queue: [] };
  listeners.set(job.id, (reply) => {
    job.queue.push(reply);
    job.wake?.();
  });
  w.ref();
  w.postMessage({ job: job.id, file, kind, ahead: AHEAD });
  return job;
}

function stopJob(job: Job): void {
  job.worker.postMessage({ job: job.id, stop: true });
  endJob(job);
}

function endJob(job: Job): void {
  listeners.delete(job.id);
  // The thread keeps the process alive only while a file is being read.
  if (listeners.size === 0) job.worker.unref();
}

async function* batchesOf(job: Job): AsyncGenerator<Checked[]> {
  let finished = false;
  try {
    for (;;) {
      while (job.queue.length === 0) await new Promise<void>((resolve) => (job.wake = resolve));
      const reply = job.queue.shift()!;
      if ("failed" in reply) throw reply.failed;
      if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
      if (reply.done) {
        finished = true;
        return;
      }
      job.worker.postMessage({ job: job.id, more: true });
      yield reply.batch!;
    }
  } finally {
    if (finished) endJob(job);
    else stopJob(job);
  }
}
