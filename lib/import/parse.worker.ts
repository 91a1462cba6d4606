import { parentPort } from "node:worker_threads";
import type { RecordKind } from "@/lib/domain/fields";
import { validatedRows } from "./validated-rows";

/**
 * Reads and checks files on a thread of its own while the import's thread writes (see
 * parallel-rows.ts). At most `ahead` batches of a file wait unread, so memory stays flat for
 * any file size.
 */
type Message = { job: number; file: string; kind: RecordKind; ahead: number } | { job: number; more: true } | { job: number; stop: true };

interface Job {
  credits: number;
  stopped: boolean;
  wake?: () => void;
}

// Usually one file; two while the next file is read ahead of its turn (parallel-rows.ts).
const jobs = new Map<number, Job>();

async function parse(job: number, file: string, kind: RecordKind, ahead: number) {
  const state: Job = { credits: ahead, stopped: false };
  jobs.set(job, state);
  try {
    for await (const batch of validatedRows(file, kind)) {
      while (state.credits === 0 && !state.stopped) await new Promise<void>((resolve) => (state.wake = resolve));
      if (state.stopped) return;
      state.credits--;
      parentPort!.postMessage({ job, batch });
    }
    parentPort!.postMessage({ job, done: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    parentPort!.postMessage({ job, error: { message: e?.message ?? String(err), code: e?.code } });
  } finally {
    jobs.delete(job);
  }
}

parentPort!.on("message", (m: Message) => {
  if ("file" in m) {
    void parse(m.job, m.file, m.kind, m.ahead);
    return;
  }
  const state = jobs.get(m.job);
  if (!state) return;
  if ("more" in m) state.credits++;
  else state.stopped = true;
  state.wake?.();
});
