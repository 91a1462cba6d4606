import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { RecordKind } from "@/lib/domain/fields";
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

function parseThread(): Worker {
  if (worker) return worker;
  const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), "parse.worker.mjs");
  const w = new Worker(entry);
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
  return process.env.IMPORT_THREADS === "0" ? validatedRows(file, kind) : onParseThread(file, kind);
}

async function* onParseThread(file: string, kind: RecordKind): AsyncGenerator<Checked[]> {
  const w = parseThread();
  const job = nextJob++;
  const queue: (Reply | { failed: Error })[] = [];
  let wake: (() => void) | undefined;
  listeners.set(job, (reply) => {
    queue.push(reply);
    wake?.();
  });
  w.ref();
  w.postMessage({ job, file, kind, ahead: AHEAD });
  let finished = false;
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const reply = queue.shift()!;
      if ("failed" in reply) throw reply.failed;
      if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
      if (reply.done) {
        finished = true;
        return;
      }
      w.postMessage({ job, more: true });
      yield reply.batch!;
    }
  } finally {
    if (!finished) w.postMessage({ job, stop: true });
    listeners.delete(job);
    w.unref();
  }
}
