import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { ConfigError } from "@/lib/config";
import type { ReadResult, ReadStatement } from "./read";

/**
 * Reads of the SQLite backend on worker threads, each with its own read connection. better-sqlite3
 * runs a query on the thread that calls it, so on the server's event loop one slow query would
 * stall every other request; here queries run beside the event loop, on both cores, and a batch
 * of statements reads one snapshot (WAL readers never wait for the import's writer).
 */

interface Pending {
  resolve: (results: ReadResult[]) => void;
  reject: (err: Error) => void;
}

class ReaderThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failed: Error | undefined;

  constructor(file: string, cacheKib: number) {
    // A 1000-record page makes a few megabytes of short-lived rows and text: a young generation
    // of 32 MB collects them cheaply (docs/performance.md, "Why the server and the JSON writers are set as they are").
    this.worker = new Worker(/* turbopackIgnore: true */ WORKER_FILE, { workerData: { file, cacheKib }, resourceLimits: { maxYoungGenerationSizeMb: 32 } });
    this.worker.unref();
    this.worker.on("message", (message: { id: number; results?: ReadResult[]; error?: { message: string; code?: string } }) => {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.results) pending.resolve(message.results);
      else pending.reject(Object.assign(new Error(message.error?.message ?? "read failed"), { code: message.error?.code }));
    });
    const fail = (err: Error) => {
      this.failed = err;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`SQLite reader thread exited (${code})`)));
  }

  get load(): number {
    return this.failed ? Number.POSITIVE_INFINITY : this.pending.size;
  }

  get broken(): boolean {
    return this.failed !== undefined;
  }

  run(statements: readonly ReadStatement[]): Promise<ReadResult[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, statements });
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

// Loaded by path from the project root, where `next start`, the commands and the tests all run:
// the bundle next.config.mjs builds, or else the TypeScript source through tsx.
const BUNDLE = path.resolve(/* turbopackIgnore: true */ process.cwd(), ".worker/sqlite-reader.worker.cjs");
const WORKER_FILE = fs.existsSync(BUNDLE) ? BUNDLE : path.resolve(/* turbopackIgnore: true */ process.cwd(), "lib/data/connection/sqlite-reader.worker.mjs");

export class SqliteReaders {
  private threads: ReaderThread[];

  constructor(
    private readonly file: string,
    size: number,
    private readonly cacheKib = 8 * 1024,
  ) {
    this.threads = Array.from({ length: size }, () => new ReaderThread(file, cacheKib));
  }

  /** Runs the statements in order on the least busy thread, in one read transaction. */
  run(statements: readonly ReadStatement[]): Promise<ReadResult[]> {
    // A thread that died (it should not) is replaced rather than failing every later read.
    this.threads = this.threads.map((t) => (t.broken ? new ReaderThread(this.file, this.cacheKib) : t));
    let best = this.threads[0];
    for (const t of this.threads) if (t.load < best.load) best = t;
    return best.run(statements);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.terminate()));
  }
}

/** SQLITE_READERS: reader threads of a server on SQLite (default 2; 0 reads on the event loop). */
export function sqliteReaderCount(raw = process.env.SQLITE_READERS): number {
  if (raw === undefined || raw === "") return 2;
  if (!/^\d{1,2}$/.test(raw)) throw new ConfigError("SQLITE_READERS must be a whole number from 0 to 99");
  return Number(raw);
}
