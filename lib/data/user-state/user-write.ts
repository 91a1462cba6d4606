import { type Kysely, sql } from "kysely";
import type { Db } from "../connection/db";
import type { Database } from "../connection/schema";

/**
 * A change of one user's own things (saved views, mail settings), serialised with that user's
 * other changes, so that rules across rows hold when two requests race. PostgreSQL locks the
 * user's row. SQLite takes the write lock before the first read (BEGIN IMMEDIATE: a deferred
 * transaction could find its snapshot outdated by another writer, an import for instance, at its
 * first write, and fail at once with SQLITE_BUSY); it asks for it without the connection's busy
 * wait, which would stop the server's event loop for as long as an import holds the lock, and
 * asks again every few milliseconds, leaving the connection to other requests meanwhile, for at
 * most SQLITE_WRITE_WAIT_MS (then SQLITE_BUSY: a 503 from a route, one clear line from a command).
 */
const SQLITE_WRITE_WAIT_MS = 10_000;
const SQLITE_RETRY_MS = 25;

export async function changingUser<T>(database: Pick<Db, "db" | "dialect" | "sqlite">, userId: number, change: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  const { db, dialect, sqlite } = database;
  if (dialect === "postgres" || !sqlite) {
    return db.transaction().execute(async (trx) => {
      if (dialect === "postgres") await sql`select id from users where id = ${userId} for update`.execute(trx);
      return change(trx);
    });
  }
  const deadline = Date.now() + SQLITE_WRITE_WAIT_MS;
  for (;;) {
    const outcome = await db.connection().execute(async (conn): Promise<{ done: T } | "busy"> => {
      const wait = Number(sqlite.pragma("busy_timeout", { simple: true }));
      sqlite.pragma("busy_timeout = 0");
      try {
        await sql`begin immediate`.execute(conn);
      } catch (err) {
        if ((err as { code?: unknown }).code === "SQLITE_BUSY" && Date.now() < deadline) return "busy";
        throw err;
      } finally {
        sqlite.pragma(`busy_timeout = ${wait}`);
      }
      try {
        const done = await change(conn);
        await sql`commit`.execute(conn);
        return { done };
      } catch (err) {
        await sql`rollback`.execute(conn).catch(() => {});
        throw err;
      }
    });
    if (outcome !== "busy") return outcome.done;
    await new Promise((resolve) => setTimeout(resolve, SQLITE_RETRY_MS));
  }
}
