import { CompiledQuery, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { pgPoolMax, pgQueryTimeoutSeconds } from "@/lib/config";
import { jsonArrayBytes, RECORD_JSON_COLUMN } from "./record-json";
import { Memo, type ReadResult, type ReadStatement, type Remembered, rememberedIn, type Row, runBatch, runBatchCarried, runBatchConcurrently } from "./read";
import type { Database } from "./schema";

/**
 * PostgreSQL connections: a pool to one server (the primary of DATABASE_URL, or one of its
 * streaming replicas) and the read path that runs a batch of statements in one snapshot on it.
 */

const INT8_OID = 20;

export interface PostgresPool {
  db: Kysely<Database>;
  pool: pg.Pool;
  /**
   * Drops every connection of the pool at once, including those a query is waiting on: each such
   * query fails with "Connection terminated" instead of waiting for a server that does not answer.
   */
  severAll(): void;
}

/**
 * `server`: a connection of `next start`. Its statements are cancelled by PostgreSQL after
 * PG_QUERY_TIMEOUT_SECONDS (statement_timeout), and the driver stops waiting a second later for a
 * server that does not answer at all (a frozen host, a dead link): that connection is then
 * discarded, never handed to the next request, whose query would queue behind the lost one.
 * `connectTimeoutMs`: how long a new connection may take (a replica's is short, so that a frozen
 * one is given up quickly).
 */
export function postgresPool(url: string, opts: { server?: boolean; poolMax?: number; connectTimeoutMs?: number; allowExitOnIdle?: boolean } = {}): PostgresPool {
  const timeoutMs = pgQueryTimeoutSeconds() * 1000;
  const pool = new pg.Pool({
    connectionString: url,
    // The server writes only nonces and sessions. Their commits need not wait for the disk: a
    // crash could forget the last fraction of a second of them (a request replayed within it
    // would be accepted once; a fresh session would have to sign in again), while every signed
    // request saves a disk flush. The commands, which write records, keep the default.
    ...(opts.server ? { options: `-c synchronous_commit=off -c statement_timeout=${timeoutMs}`, query_timeout: timeoutMs + 1000 } : {}),
    max: opts.poolMax ?? pgPoolMax(),
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: opts.allowExitOnIdle ?? false,
    // BIGINT values here (ids, minor units, epoch ms) stay below 2^53, so numbers are exact.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const clients = new Set<pg.PoolClient>();
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    clients.add(client);
    // Nor may a checked-out one. pg-pool listens for errors on idle clients only, so a client that
    // hears the server's 57P01 (shutdown) between two queries - e.g. right after its query answered,
    // before Kysely released it - emitted an unhandled 'error': an uncaught exception in the server.
    // Its next query fails instead ("... not queryable", a 503) and the pool then drops it.
    client.on("error", () => {});
    discardOnReadTimeout(client);
  });
  pool.on("remove", (client) => clients.delete(client));
  return {
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    pool,
    severAll: () => {
      for (const client of clients) destroyConnection(client);
    },
  };
}

/**
 * The driver answers a query that outlived query_timeout with "Query read timeout" but leaves it
 * on the connection, so the connection would go back to the pool with a query still in flight and
 * the next query on it would wait behind it. Ending the connection makes the pool discard it.
 */
function discardOnReadTimeout(client: pg.PoolClient) {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const answer = query(...args);
    if (answer && typeof (answer as Promise<unknown>).then === "function") {
      (answer as Promise<unknown>).then(undefined, (err: unknown) => {
        if (err instanceof Error && err.message === "Query read timeout") destroyConnection(client);
      });
    }
    return answer;
  };
}

function destroyConnection(client: pg.PoolClient) {
  // `_ending` makes pg-pool drop the client when it is released; the socket goes at once.
  (client as unknown as { _ending: boolean })._ending = true;
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

/** Runs read statements in one snapshot on one PostgreSQL server, remembering totals per data version (read.ts). */
export interface PostgresReader {
  read(statements: readonly ReadStatement[]): Promise<ReadResult[]>;
  remembered(s: ReadStatement): Remembered | undefined;
}

/**
 * A batch on the pool: in one round trip when every statement carries the data's version, else
 * concurrently between two reads of the version, or in one repeatable-read transaction when an
 * import committed meanwhile (read.ts). Each server has its own memo: a replica may be a version
 * behind the primary, and a memo holds one version.
 */
export function postgresReader(db: Kysely<Database>): PostgresReader {
  const memo = new Memo();
  const rowsOn = (executor: Kysely<Database>) => async (s: ReadStatement) => (await executor.executeQuery<Row>(CompiledQuery.raw(s.sql, [...s.parameters]))).rows;
  const runOn = (executor: Kysely<Database>) => async (s: ReadStatement) => written(s, await rowsOn(executor)(s));
  const carried = async (statements: readonly ReadStatement[]) =>
    (await runBatchCarried(statements, memo, rowsOn(db)))?.map((rows, i) => written(statements[i], rows));
  return {
    read: async (statements) =>
      (await carried(statements)) ??
      (await runBatchConcurrently(statements, memo, runOn(db))) ??
      db
        .transaction()
        .setIsolationLevel("repeatable read")
        .setAccessMode("read only")
        .execute((trx) => runBatch(statements, memo, runOn(trx))),
    remembered: (s) => rememberedIn(memo, s),
  };
}

/** A statement's result: its rows, or the API's JSON array of records when it asked for it. */
export function written(s: ReadStatement, rows: Row[]): ReadResult {
  return s.json ? jsonArrayBytes(rows.map((row) => row[RECORD_JSON_COLUMN] as string)) : rows;
}
