import { parentPort } from "node:worker_threads";
import type { RecordKind } from "@/lib/domain/fields";
import { validatedRows } from "./validated-rows";

/**
 * Reads and checks files on a thread of its own while the import's thread writes (see
 * parallel-rows.ts), one file at a time. At most `ahead` batches wait unread, so memory stays
 * flat for any file size.
 */
type Message = { job: number; file: string; kind: RecordKind; ahead: number } | { job: number; more: true } | { job: number; stop: true };

let current: { job: number; credits: number; stopped: boolean; wake?: () => void } | undefined;

async function parse(job: number, file: string, kind: RecordKind, ahead: number) {
  const state = { job, credits: ahead, stopped: false as boolean, wake: undefined as (() => void) | undefined };
  current = state;
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
    if (current === state) current = undefined;
  }
}

parentPort!.on("message", (m: Message) => {
  if ("file" in m) {
    void parse(m.job, m.file, m.kind, m.ahead);
    return;
  }
  if (current?.job !== m.job) return;
  if ("more" in m) current.credits++;
  else current.stopped = true;
  current.wake?.();
});
