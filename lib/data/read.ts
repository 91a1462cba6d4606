import type { RecordKind } from "@/lib/domain/fields";

/**
 * One read statement of the data module, as it crosses to a reader thread: compiled SQL, its
 * bound values, and whether its rows come back as the API's JSON array of records (`json`).
 */
export interface ReadStatement {
  sql: string;
  parameters: readonly unknown[];
  json?: RecordKind;
  /** this statement's rows name the data's version (see `runBatch`) */
  version?: true;
  /** the rows may be reused for the same statement while the version stays the same */
  memo?: true;
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

  get(version: string, key: string): Row[] | undefined {
    if (version !== this.version) {
      this.version = version;
      this.results.clear();
      return undefined;
    }
    return this.results.get(key);
  }

  set(version: string, key: string, rows: Row[]): void {
    if (version !== this.version) return;
    if (this.results.size >= this.capacity) this.results.clear();
    this.results.set(key, rows);
  }
}

const memoKey = (s: ReadStatement) => `${s.sql}\u0000${JSON.stringify(s.parameters)}`;

/** The statement that names the data's version; put it first in a batch that has memo statements. */
export const VERSION_STATEMENT: ReadStatement = { sql: 'select max("id") as "v" from "imported_files"', parameters: [], version: true };

/**
 * Runs a batch: `run` executes one statement. In order, for a driver whose statements share one
 * snapshot (SQLite's read transaction); with `concurrent`, every statement that is not a memo
 * runs at once and the memo statements follow (PostgreSQL's pool: fewer round trips in a row).
 */
export async function runBatch(
  statements: readonly ReadStatement[],
  memo: Memo,
  run: (s: ReadStatement) => ReadResult | Promise<ReadResult>,
  opts: { concurrent?: boolean } = {},
): Promise<ReadResult[]> {
  const results: ReadResult[] = new Array(statements.length);
  let version: string | undefined;
  const plain = async (i: number) => {
    results[i] = await run(statements[i]);
    if (statements[i].version) version = JSON.stringify(results[i]);
  };
  const remembered = async (i: number) => {
    const s = statements[i];
    const key = memoKey(s);
    let rows = version === undefined ? undefined : memo.get(version, key);
    if (!rows) {
      rows = (await run(s)) as Row[];
      if (version !== undefined) memo.set(version, key, rows);
    }
    results[i] = rows;
  };
  const indexes = statements.map((_, i) => i);
  if (opts.concurrent) {
    await Promise.all(indexes.filter((i) => !statements[i].memo).map(plain));
    await Promise.all(indexes.filter((i) => statements[i].memo).map(remembered));
  } else {
    for (const i of indexes) await (statements[i].memo ? remembered(i) : plain(i));
  }
  return results;
}
