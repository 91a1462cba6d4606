import type { Dialect } from "./dialect";

/**
 * One read statement of the data module, as it crosses to a reader thread: compiled SQL, its
 * bound values, and whether its rows come back as the API's JSON array of records (`json`).
 */
export interface ReadStatement {
  sql: string;
  parameters: readonly unknown[];
  /** each row holds one record's JSON text, in RECORD_JSON_COLUMN (written by SQLite, `sqlRecordJson`, or stored on PostgreSQL, migration 012): the rows come back as the array's UTF-8 bytes */
  json?: true;
  /** this statement's rows name the data's version (see `runBatch`) */
  version?: true;
  /** the rows may be reused for the same statement while the version stays the same */
  memo?: true;
  /** each row also names the version of the statement's own snapshot, in VERSION_COLUMN (`carryingVersion`) */
  carriesVersion?: true;
  /**
   * The statement is right only in a snapshot of this data version (a version key, `Remembered`):
   * it relies on a fact remembered there, such as a scope that holds every shop. In a snapshot of
   * any other version, or where the version is not known, `otherwise` runs in its place.
   */
  onlyAt?: { version: string; otherwise: ReadStatement };
}

export type Row = Record<string, unknown>;

/** Rows of a statement, or their JSON (text, or UTF-8 from a reader thread) when it asked for it. */
export type ReadResult = Row[] | string | Uint8Array;

/**
 * Remembered results (exact totals) per data version. Records change only through imports, and
 * every committed import adds a row to imported_files in the same transaction, so the largest
 * imported_files id read in a snapshot names the records that snapshot holds: a total counted
 * under that version is still exact while the version stays the same.
 */
export class Memo {
  private version: string | undefined;
  private readonly results = new Map<string, Row[]>();

  constructor(private readonly capacity = 10_000) {}

  /** the version whose results are remembered now */
  get current(): string | undefined {
    return this.version;
  }

  get(version: string, key: string): Row[] | undefined {
    if (version !== this.version) {
      this.version = version;
      this.results.clear();
      return undefined;
    }
    return this.results.get(key);
  }

  /** Remembers rows counted under `version`; a memo that moved on to another version keeps its own. */
  set(version: string, key: string, rows: Row[]): void {
    if (version !== this.version) return;
    if (this.results.size >= this.capacity) this.results.clear();
    this.results.set(key, rows);
  }

  /** Remembers rows counted under `version`, which becomes the current one. */
  setAt(version: string, key: string, rows: Row[]): void {
    if (version !== this.version) {
      this.version = version;
      this.results.clear();
    }
    this.set(version, key, rows);
  }
}

/** A result the memo holds for a statement, and the version (key) it was counted under. */
export interface Remembered {
  version: string;
  rows: Row[];
}

/** What `memo` remembers for `s` under its current version, without running anything. */
export function rememberedIn(memo: Memo, s: ReadStatement): Remembered | undefined {
  const version = memo.current;
  const rows = version === undefined ? undefined : memo.get(version, memoKey(s));
  return version === undefined || !rows ? undefined : { version, rows };
}

/** The statement to run in a snapshot of `version` (a version key, or undefined when unknown). */
export function statementAt(s: ReadStatement, version: string | undefined): ReadStatement {
  return !s.onlyAt || s.onlyAt.version === version ? s : statementAt(s.onlyAt.otherwise, version);
}

const memoKey = (s: ReadStatement) => `${s.sql}\u0000${JSON.stringify(s.parameters)}`;

/** The data's version: the last committed import's id. */
export const VERSION_SQL = 'select max("id") from "imported_files"';

/** The statement that names the data's version; put it first in a batch that has memo statements. */
export const VERSION_STATEMENT: ReadStatement = { sql: `select (${VERSION_SQL}) as "v"`, parameters: [], version: true };

/** The column in which a statement that carries the version names it. */
export const VERSION_COLUMN = "data_version";

/** The version as a batch names it (the version statement's rows, as text): the memo's key. */
export const versionKey = (rows: ReadResult) => JSON.stringify(rows);

/**
 * A statement of one row (an aggregate, such as a count) that also names its snapshot's version:
 * a scalar subquery beside it is read in the same snapshot.
 */
export function carryingVersion(s: ReadStatement): ReadStatement {
  return { ...s, sql: `select "t".*, (${VERSION_SQL}) as "${VERSION_COLUMN}" from (${s.sql}) as "t"`, carriesVersion: true };
}

/** `carryingVersion` on PostgreSQL, where a batch of such statements is one round trip (`runBatchCarried`); `s` elsewhere. */
export function versioned(dialect: Dialect, s: ReadStatement): ReadStatement {
  return dialect === "postgres" ? carryingVersion(s) : s;
}

type Run = (s: ReadStatement) => ReadResult | Promise<ReadResult>;

/**
 * Runs a batch in order, for a driver whose statements share one snapshot (SQLite's read
 * transaction, or a PostgreSQL transaction): `run` executes one statement.
 */
export async function runBatch(statements: readonly ReadStatement[], memo: Memo, run: Run): Promise<ReadResult[]> {
  const results: ReadResult[] = new Array(statements.length);
  let version: string | undefined;
  for (const [i, given] of statements.entries()) {
    const s = statementAt(given, version);
    if (!s.memo) {
      results[i] = await run(s);
      if (s.version) version = versionKey(results[i]);
      continue;
    }
    const key = memoKey(s);
    let rows = version === undefined ? undefined : memo.get(version, key);
    if (!rows) {
      rows = (await run(s)) as Row[];
      if (version !== undefined) memo.set(version, key, rows);
    }
    results[i] = rows;
  }
  return results;
}

/**
 * Runs a batch whose statements each read a snapshot of their own (PostgreSQL's pool), with fewer
 * round trips in a row than one transaction: the version statement first, then every other
 * statement at once (a remembered result needs no query), then the version again. An import that
 * committed in between moved the version, and the answers may mix the data before and after it
 * (a total with the file, a page without it): then the result is undefined, nothing is
 * remembered, and the caller reads again in one snapshot. A batch without a version statement
 * runs at once as it is.
 */
export async function runBatchConcurrently(statements: readonly ReadStatement[], memo: Memo, run: Run): Promise<ReadResult[] | undefined> {
  const results: ReadResult[] = new Array(statements.length);
  const indexes = statements.map((_, i) => i);
  const versionAt = indexes.find((i) => statements[i].version);
  if (versionAt === undefined) {
    await Promise.all(indexes.map(async (i) => (results[i] = await run(statements[i]))));
    return results;
  }
  results[versionAt] = await run(statements[versionAt]);
  const version = versionKey(results[versionAt]);
  const counted: [string, Row[]][] = [];
  await Promise.all(
    indexes
      .filter((i) => i !== versionAt)
      .map(async (i) => {
        const s = statementAt(statements[i], version);
        if (!s.memo) {
          results[i] = await run(s);
          return;
        }
        const key = memoKey(s);
        const known = memo.get(version, key);
        if (known) {
          results[i] = known;
          return;
        }
        const rows = (await run(s)) as Row[];
        counted.push([key, rows]);
        results[i] = rows;
      }),
  );
  if (versionKey(await run(statements[versionAt])) !== version) return undefined;
  for (const [key, rows] of counted) memo.set(version, key, rows);
  return results;
}

/**
 * One round trip on PostgreSQL's pool, for a batch whose other statements all carry the version
 * (`carriesVersion`): they run at once, each in a snapshot of its own, and a remembered result
 * stands in for its statement when it was remembered under the version the others name. When
 * every statement that ran names the same version, the batch is that version's answer (the
 * version names the records a snapshot holds, see `Memo`). When they differ (an import committed
 * meanwhile), or a statement answered no row and so named nothing, the result is undefined and
 * the caller reads another way. `run` answers rows; the caller writes JSON from them afterwards.
 */
export async function runBatchCarried(statements: readonly ReadStatement[], memo: Memo, run: (s: ReadStatement) => Promise<Row[]>): Promise<Row[][] | undefined> {
  if (!statements.every((s) => s.version || s.carriesVersion)) return undefined;
  const results: Row[][] = new Array(statements.length);
  const remembered = memo.current;
  const named = new Set<string | undefined>();
  const counted: [string, Row[]][] = [];
  await Promise.all(
    statements.map(async (s, i) => {
      if (s.version) return;
      const key = s.memo ? memoKey(s) : undefined;
      const known = key !== undefined && remembered !== undefined ? memo.get(remembered, key) : undefined;
      if (known) {
        results[i] = known;
        named.add(remembered);
        return;
      }
      const rows = await run(s);
      results[i] = rows;
      named.add(rows.length ? versionKey([{ v: rows[0][VERSION_COLUMN] ?? null }]) : undefined);
      if (key !== undefined) counted.push([key, rows]);
    }),
  );
  if (named.size !== 1) return undefined;
  const [version] = named;
  if (version === undefined) return undefined;
  // A statement right only at another version read a snapshot it must not answer from.
  if (statements.some((s) => statementAt(s, version) !== s)) return undefined;
  for (const [i, s] of statements.entries()) if (s.version) results[i] = JSON.parse(version) as Row[];
  for (const [key, rows] of counted) memo.setAt(version, key, rows);
  return results;
}
