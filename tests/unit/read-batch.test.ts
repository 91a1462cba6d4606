import { describe, expect, it } from "vitest";
import { carryingVersion, Memo, type ReadStatement, rememberedIn, type Row, runBatch, runBatchCarried, runBatchConcurrently, VERSION_COLUMN, VERSION_STATEMENT } from "@/lib/data/connection/read";

/**
 * The one-round-trip batch of PostgreSQL (lib/data/connection/read.ts): statements that each name the version
 * of their own snapshot. Here `run` stands for the database: it answers each statement from the
 * version that is current when the statement is read, and an "import" may move it in between.
 */

const count: ReadStatement = carryingVersion({ sql: "select count(*) as n from t", parameters: [], memo: true });
const page: ReadStatement = { sql: "select *, v from t order by id", parameters: [], carriesVersion: true };

function database(versions: number[], rowsPerPage = 2) {
  let reads = 0;
  const ran: string[] = [];
  const run = async (s: ReadStatement): Promise<Row[]> => {
    // Each statement sees the version in force when it is read; the list moves one step per read.
    const v = versions[Math.min(reads++, versions.length - 1)];
    ran.push(s.sql);
    if (s === count || s.sql === count.sql) return [{ n: v * 10, [VERSION_COLUMN]: v }];
    return Array.from({ length: rowsPerPage }, (_, i) => ({ id: i, [VERSION_COLUMN]: v }));
  };
  return { run, ran };
}

describe("runBatchCarried", () => {
  it("answers a batch whose statements name one version, with the version statement's rows", async () => {
    const memo = new Memo();
    const { run, ran } = database([7, 7]);
    const results = await runBatchCarried([VERSION_STATEMENT, count, page], memo, run);
    expect(results?.[0]).toEqual([{ v: 7 }]);
    expect(results?.[1]).toEqual([{ n: 70, [VERSION_COLUMN]: 7 }]);
    expect(ran).toHaveLength(2);
  });

  it("reuses a remembered count only under the version the page names", async () => {
    const memo = new Memo();
    await runBatchCarried([VERSION_STATEMENT, count, page], memo, database([7, 7]).run);
    const same = database([7]);
    expect((await runBatchCarried([VERSION_STATEMENT, count, page], memo, same.run))?.[1]).toEqual([{ n: 70, [VERSION_COLUMN]: 7 }]);
    expect(same.ran).toEqual([page.sql]);
    // An import committed since: the page names 8, the remembered count is 7's. No answer.
    const moved = database([8]);
    expect(await runBatchCarried([VERSION_STATEMENT, count, page], memo, moved.run)).toBeUndefined();
  });

  it("gives no answer when an import commits between the statements", async () => {
    expect(await runBatchCarried([VERSION_STATEMENT, count, page], new Memo(), database([7, 8]).run)).toBeUndefined();
  });

  it("gives no answer when a statement has no row to name its version", async () => {
    expect(await runBatchCarried([VERSION_STATEMENT, count, page], new Memo(), database([7, 7], 0).run)).toBeUndefined();
  });

  it("leaves a batch with a statement that names no version to the other ways", async () => {
    const plain: ReadStatement = { sql: "select 1", parameters: [] };
    const { run, ran } = database([7]);
    expect(await runBatchCarried([VERSION_STATEMENT, plain], new Memo(), run)).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it("remembers a count taken under a newer version than the memo's", async () => {
    const memo = new Memo();
    await runBatchCarried([VERSION_STATEMENT, count, page], memo, database([7, 7]).run);
    expect(await runBatchCarried([VERSION_STATEMENT, count, page], memo, database([8]).run)).toBeUndefined();
    // A request that counts under 8 (memo still at 7): both name 8, and 8's count is kept.
    memo.get('[{"v":8}]', "moved on");
    const fresh = database([9, 9]);
    const results = await runBatchCarried([VERSION_STATEMENT, count, page], memo, fresh.run);
    expect(results?.[0]).toEqual([{ v: 9 }]);
    expect(memo.current).toBe('[{"v":9}]');
    const again = database([9]);
    await runBatchCarried([VERSION_STATEMENT, count, page], memo, again.run);
    expect(again.ran).toEqual([page.sql]);
  });
});

/**
 * A statement right only at one data version (`onlyAt`, e.g. a page without the scope test while
 * the scope holds every shop): every way of reading answers it only from a snapshot of that
 * version, and runs the statement it names otherwise in any other.
 */
describe("statements right only at one version", () => {
  const scoped: ReadStatement = { sql: "select *, v from t where shop = any($1) order by id", parameters: [["a", "b"]], carriesVersion: true };
  const at = (v: number): ReadStatement => ({ sql: "select *, v from t order by id", parameters: [], carriesVersion: true, onlyAt: { version: `[{"v":${v}}]`, otherwise: scoped } });

  it("one round trip answers only when the snapshot is of that version", async () => {
    const same = database([7, 7]);
    expect(await runBatchCarried([VERSION_STATEMENT, count, at(7)], new Memo(), same.run)).toBeDefined();
    expect(same.ran).toEqual([count.sql, at(7).sql]);
    // The count and the page agree on 8, but the page was right only at 7.
    expect(await runBatchCarried([VERSION_STATEMENT, count, at(7)], new Memo(), database([8, 8]).run)).toBeUndefined();
  });

  it("between two reads of the version, the other statement runs at another version", async () => {
    const versionRows = (v: number) => [{ v }];
    const ran: string[] = [];
    const run = (v: number) => async (s: ReadStatement) => {
      ran.push(s.sql);
      return s.version ? versionRows(v) : [{ n: 1 }];
    };
    await runBatchConcurrently([VERSION_STATEMENT, at(7)], new Memo(), run(8));
    expect(ran).toEqual([VERSION_STATEMENT.sql, scoped.sql, VERSION_STATEMENT.sql]);
    ran.length = 0;
    await runBatchConcurrently([VERSION_STATEMENT, at(8)], new Memo(), run(8));
    expect(ran).toEqual([VERSION_STATEMENT.sql, at(8).sql, VERSION_STATEMENT.sql]);
  });

  it("in one snapshot, the version read first decides; without it the other statement runs", async () => {
    const ran: string[] = [];
    const run = async (s: ReadStatement) => {
      ran.push(s.sql);
      return s.version ? [{ v: 8 }] : [];
    };
    await runBatch([VERSION_STATEMENT, at(7), at(8)], new Memo(), run);
    expect(ran).toEqual([VERSION_STATEMENT.sql, scoped.sql, at(8).sql]);
    ran.length = 0;
    await runBatch([at(8)], new Memo(), run);
    expect(ran).toEqual([scoped.sql]);
  });

  it("the memo tells what it remembers and under which version, without running anything", async () => {
    const memo = new Memo();
    expect(rememberedIn(memo, count)).toBeUndefined();
    await runBatchCarried([VERSION_STATEMENT, count, page], memo, database([7, 7]).run);
    expect(rememberedIn(memo, count)).toEqual({ version: '[{"v":7}]', rows: [{ n: 70, [VERSION_COLUMN]: 7 }] });
    expect(rememberedIn(memo, page)).toBeUndefined();
    expect(memo.current).toBe('[{"v":7}]');
  });
});
