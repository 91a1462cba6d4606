import { type Migration, sql } from "kysely";
import type { Dialect } from "../connection/dialect";
import { STATE_SESSIONS_003, STATE_THROTTLES_006 } from "./frozen";

/**
 * Sign-in attempts per account and address, and the API's token bucket per credential, in the
 * database so that every instance shares them (on SQLite in the state database: an import never
 * makes them wait).
 */
export function migration006(dialect: Dialect): Migration {
  return {
    async up(db) {
      if (dialect === "postgres") {
        await sql`create table login_throttle (key text primary key, attempts bigint not null, window_start bigint not null)`.execute(db);
        await sql`create table rate_buckets (credential text primary key, tokens double precision not null, updated_ms bigint not null, taken boolean not null)`.execute(db);
      } else {
        for (const statement of [...STATE_SESSIONS_003, ...STATE_THROTTLES_006]) await statement.execute(db);
      }
    },
  };
}
