import type { Kysely } from "kysely";
import { isDatabaseUnavailable } from "@/lib/data/connection/db";
import type { Database } from "@/lib/data/connection/schema";
import { hasErrorCode } from "@/lib/data/connection/unavailable";
import type { RecordKind } from "@/lib/domain/kinds";
import { digestFacts, marksAtCreation, recordMarks } from "./digest-facts";
import { duePeriod, localDate } from "./schedule";
import { mailUsers } from "./settings";
import { storeMessage } from "./store";

/**
 * Composing the digests due at an instant (docs/mail.md, "Digests"), the same code for the
 * server's schedule and `admin digest run`. Each user's period is claimed by inserting its row in
 * mail_digests: whoever inserts it first composes it, so two servers and the command never send
 * one user two digests for one period. A period with nothing to say is claimed too, and sends nothing.
 * One user's digest that fails to compose is reported and leaves the others' alone; a database
 * that is away (or SQLite's write lock held by an import) ends the run for everyone.
 */

export interface DigestRun {
  /** users whose digest period was due and claimed here */
  claimed: number;
  /** the messages stored (periods with something to say) */
  messages: number[];
  /** users whose due digest was composed here (claimed, whether or not it had something to say) */
  composed: number[];
  /** users whose due digest failed to compose, and why: nothing of it was stored */
  failed: { userId: number; error: unknown }[];
}

/** `skip`: users left out of this run (the server's backoff after a failure). */
export async function composeDueDigests(db: Kysely<Database>, at: number, opts: { skip?: (userId: number) => boolean } = {}): Promise<DigestRun> {
  const users = (await mailUsers(db)).filter((u) => u.settings.digest !== "off" && !opts.skip?.(u.userId));
  const run: DigestRun = { claimed: 0, messages: [], composed: [], failed: [] };
  if (users.length === 0) return run;
  const latest = await db
    .selectFrom("mail_digests as d")
    .selectAll()
    .where(({ eb, selectFrom }) => eb("d.period_at", "=", selectFrom("mail_digests as e").select((e) => e.fn.max("e.period_at").as("m")).whereRef("e.user_id", "=", "d.user_id")))
    .execute();
  const previous = new Map(latest.map((d) => [Number(d.user_id), d]));
  const upTo = await recordMarks(db);
  /** The user's due digest: its message id, null when it had nothing to say, undefined when none was due or another claimed it. */
  const composeOne = async (user: (typeof users)[number]): Promise<number | null | undefined> => {
    const prev = previous.get(user.userId);
    const periodAt = duePeriod(user.settings, Math.max(user.createdAt, prev ? Number(prev.period_at) : -Infinity), at);
    if (periodAt === null) return undefined;
    const since: Record<RecordKind, number> = prev ? { chargeback: Number(prev.chargeback_mark), pre_arbitration: Number(prev.pre_arbitration_mark) } : await marksAtCreation(db, user.createdAt, upTo);
    const facts = await digestFacts({
      access: user.access,
      frequency: user.settings.digest === "weekly" ? "weekly" : "daily",
      periodAt,
      zone: user.settings.zone,
      date: localDate(user.settings.zone, periodAt),
      since,
      upTo: { chargeback: Math.max(upTo.chargeback, since.chargeback), pre_arbitration: Math.max(upTo.pre_arbitration, since.pre_arbitration) },
    });
    return db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto("mail_digests")
        .values({ user_id: user.userId, period_at: periodAt, made_at: Date.now(), chargeback_mark: Math.max(upTo.chargeback, since.chargeback), pre_arbitration_mark: Math.max(upTo.pre_arbitration, since.pre_arbitration), message_id: null })
        .onConflict((oc) => oc.columns(["user_id", "period_at"]).doNothing())
        .returning("user_id")
        .executeTakeFirst();
      if (!claimed) return undefined;
      if (facts.new_count + facts.due_count === 0) return null;
      const id = await storeMessage(trx, user.userId, facts);
      await trx.updateTable("mail_digests").set({ message_id: id }).where("user_id", "=", user.userId).where("period_at", "=", periodAt).execute();
      return id;
    });
  };
  for (const user of users) {
    try {
      const messageId = await composeOne(user);
      if (messageId === undefined) continue;
      run.claimed++;
      run.composed.push(user.userId);
      if (messageId !== null) run.messages.push(messageId);
    } catch (err) {
      if (isDatabaseUnavailable(err) || hasErrorCode(err, ["SQLITE_BUSY"])) throw err;
      run.failed.push({ userId: user.userId, error: err });
    }
  }
  return run;
}
