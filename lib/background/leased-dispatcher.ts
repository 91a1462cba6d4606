import crypto from "node:crypto";
import { type Db, isDatabaseUnavailable, openDatabase } from "@/lib/data/connection/db";
import { freshnessWaitMs, replicasCaughtUp } from "@/lib/data/connection/replicas";
import { hasErrorCode } from "@/lib/data/connection/unavailable";
import { errorFields, log } from "@/lib/log";
import type { Job, Problem, RoundSignals } from "./runner";

/**
 * The skeleton the webhook deliveries and the mail messages share (docs/architecture.md,
 * "Background work"): each round claims due work through the database with a lease, waits for the
 * replicas' freshness, sends each claimed item on its own and records its outcome. What an item
 * is, how it is sent and what an outcome does to it (retry schedules, signatures) stay in
 * lib/webhooks and lib/mail.
 *
 * - A claim is never stranded: when the freshness wait fails or runs past its bound, the claimed
 *   items are released at once (`release` gives back the attempt the claim counted), and tried at
 *   a later round as the same attempt.
 * - An outcome that cannot be recorded (the database refuses it, or is away) is tried again each
 *   round while the next claims go on; once its lease has run out it is given up with a warning,
 *   and the item is claimed and sent again (at least once). A release that fails is kept the same way.
 * - Stopping (the runner's stop) claims nothing more; attempts in flight finish within the bound,
 *   or are aborted through their signal; what is unrecorded is written once more, then the
 *   connection closes.
 */

export interface Claimed {
  id: number;
  /** the number of this attempt (1 for the first) */
  attempt: number;
  token: string;
}

export interface ClaimRequest<Item> {
  now: number;
  leaseUntil: number;
  token: string;
  limit: number;
  /** this instance's items not yet settled: in flight, or with an outcome not yet recorded */
  busy: readonly Item[];
}

export interface LeasedWork<Item extends Claimed, Outcome> {
  /** how the logs name the dispatcher: "webhook dispatcher" */
  name: string;
  maxInFlight: number;
  /** how long one attempt holds its item, counted after the freshness wait's bound */
  leaseMs: number;
  /** Claims up to `limit` due items, leased until `leaseUntil`, counting their attempt. */
  claim(db: Db, request: ClaimRequest<Item>): Promise<Item[]>;
  /** Gives claimed items back as they were before the claim: no lease, the attempt not counted. */
  release(db: Db, items: readonly Item[]): Promise<void>;
  /** One attempt; never throws. undefined: aborted by `signal` (the stop), nothing to record. */
  attempt(db: Db, item: Item, signal: AbortSignal): Promise<Outcome | undefined>;
  record(db: Db, item: Item, outcome: Outcome): Promise<void>;
  /** After the last write, before the connection closes (an SMTP transport). */
  close?(): void;
}

export const POLL_MS = 1_000;
const POOL_MAX = 2;
/** Beyond the freshness wait's own bound: the replica monitor's start at the first call, and the primary's answer. */
const FRESHNESS_SLACK_MS = 5_000;

/** The longest the freshness wait may take before the claims are released; 0 without replicas (no wait). */
export function freshnessLimitMs(): number {
  const wait = freshnessWaitMs();
  return wait === 0 ? 0 : wait + FRESHNESS_SLACK_MS;
}

class FreshnessFailed extends Error {}

/** A write owed to the database: an outcome to record, or claims to give back. Given up when its lease has run out. */
type Owed<Item, Outcome> = { item: Item; outcome: Outcome; until: number } | { released: Item[]; until: number };

/** A database connection of a job's own, opened at its first use and again after a failed open. */
export class OwnDatabase {
  private db: Db | undefined;
  private opening: Promise<Db> | undefined;

  constructor(private readonly opts: { url?: string; poolMax: number }) {}

  get(): Promise<Db> {
    if (this.db) return Promise.resolve(this.db);
    this.opening ??= openDatabase(this.opts.url, { poolMax: this.opts.poolMax }).then(
      (db) => {
        // SQLite: an import holds the write lock for a whole file; a statement then fails at once
        // and is tried at the next round, instead of blocking the server's event loop while it waits.
        db.sqlite?.pragma("busy_timeout = 0");
        this.db = db;
        return db;
      },
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  /** The connection if one was opened (or is opening and succeeds). */
  async opened(): Promise<Db | undefined> {
    return this.db ?? (await this.opening?.catch(() => undefined));
  }

  async close(): Promise<void> {
    const db = await this.opened();
    this.db = undefined;
    this.opening = undefined;
    await db?.close().catch(() => {});
  }
}

/** SQLite's write lock held by an import: expected, and the next round tries again. */
export const isSqliteBusy = (err: unknown) => hasErrorCode(err, ["SQLITE_BUSY"]);

export class LeasedDispatcher<Item extends Claimed, Outcome> implements Job {
  readonly name: string;
  readonly everyMs = POLL_MS;
  private readonly database: OwnDatabase;
  private readonly token = crypto.randomUUID();
  private readonly inFlight = new Map<number, { item: Item; done: Promise<void> }>();
  private owed: Owed<Item, Outcome>[] = [];

  constructor(
    private readonly work: LeasedWork<Item, Outcome>,
    url?: string,
  ) {
    this.name = work.name;
    // A small pool of its own on PostgreSQL: the server's pool stays the requests'.
    this.database = new OwnDatabase({ url, poolMax: POOL_MAX });
  }

  async run({ stop, abort }: RoundSignals): Promise<void> {
    const db = await this.database.get();
    await this.settle(db);
    const room = this.work.maxInFlight - this.inFlight.size;
    if (room <= 0 || stop.aborted) return;
    const now = Date.now();
    const busy = [...[...this.inFlight.values()].map((f) => f.item), ...this.owed.flatMap((o) => ("item" in o ? [o.item] : []))];
    const freshness = freshnessLimitMs();
    const leaseUntil = now + freshness + this.work.leaseMs;
    const claimed = await this.work.claim(db, { now, leaseUntil, token: this.token, limit: room, busy });
    if (claimed.length === 0) return;
    // With read replicas, news of an import goes out once every healthy one holds it (docs/replicas.md, "Freshness").
    try {
      if (freshness > 0) await withTimeout(replicasCaughtUp(), freshness);
    } catch (err) {
      await this.release(db, claimed, leaseUntil);
      throw new FreshnessFailed("the replicas' freshness wait failed", { cause: err });
    }
    for (const item of claimed) this.launch(db, item, abort, leaseUntil);
  }

  private async release(db: Db, items: Item[], until: number) {
    try {
      await this.work.release(db, items);
    } catch {
      this.owed.push({ released: items, until });
    }
  }

  private launch(db: Db, item: Item, abort: AbortSignal, leaseUntil: number) {
    const done = (async () => {
      let outcome: Outcome | undefined;
      try {
        outcome = await this.work.attempt(db, item, abort);
      } catch (err) {
        // An attempt answers its failures itself; this is a defect, and the lease brings the item back.
        log.error({ job: this.name, item: item.id, ...errorFields(err) }, `${this.name}: an attempt failed unexpectedly`);
      }
      if (outcome === undefined) return;
      try {
        await this.work.record(db, item, outcome);
      } catch {
        this.owed.push({ item, outcome, until: leaseUntil });
      }
    })().finally(() => this.inFlight.delete(item.id));
    this.inFlight.set(item.id, { item, done });
  }

  /** Writes what is owed; what still fails waits for the next round, or is given up once its lease has run out. */
  private async settle(db: Db) {
    const owed = this.owed;
    this.owed = [];
    for (const o of owed) {
      try {
        if ("item" in o) await this.work.record(db, o.item, o.outcome);
        else await this.work.release(db, o.released);
      } catch (err) {
        if (Date.now() < o.until) this.owed.push(o);
        else if ("item" in o) log.warn({ job: this.name, item: o.item.id, attempt: o.item.attempt, ...errorFields(err) }, `${this.name}: an attempt's outcome could not be recorded before its lease ran out; given up, the item is sent again`);
        else log.warn({ job: this.name, items: o.released.map((i) => i.id), ...errorFields(err) }, `${this.name}: claims could not be given back before their lease ran out; they count as an attempt`);
      }
    }
  }

  problemOf(err: unknown): Problem | null {
    if (isSqliteBusy(err)) return null;
    if (err instanceof FreshnessFailed) return { key: "freshness", level: "warn", message: "the replicas' freshness wait failed; the claims were given back" };
    if (isDatabaseUnavailable(err)) return { key: "database", level: "warn", message: "the database is unavailable" };
    return { key: "error", level: "error", message: "failed" };
  }

  async drain(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  async close(): Promise<void> {
    const db = await this.database.opened();
    if (db) {
      // One more try each before the exit, whatever their leases say; what still fails is logged as given up.
      for (const o of this.owed) o.until = 0;
      await this.settle(db);
    }
    this.work.close?.();
    await this.database.close();
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
