import type { Kysely } from "kysely";
import { parseAccessList } from "@/lib/auth/access";
import { mailConfig } from "@/lib/config";
import type { Database } from "@/lib/data/connection/schema";
import type { RecordKind } from "@/lib/domain/kinds";
import { alertFacts } from "./facts";
import { storeMessage } from "./store";

/**
 * New-dispute alerts (docs/mail.md, "Alerts"), written by the import inside the file's own
 * transaction: one message per user with alerts on and records of the file in their shops.
 * Without SMTP_URL nothing is stored.
 */
export async function addFileAlerts(trx: Kysely<Database>, kind: RecordKind, fileDate: string, perShop: ReadonlyMap<string, number>): Promise<number> {
  if (perShop.size === 0 || !mailConfig()) return 0;
  const users = await trx
    .selectFrom("mail_settings")
    .innerJoin("users", "users.id", "mail_settings.user_id")
    .select(["users.id", "users.access_list"])
    .where("mail_settings.alerts", "=", 1)
    .orderBy("users.id")
    .execute();
  const now = Date.now();
  let stored = 0;
  for (const user of users) {
    const facts = alertFacts(kind, fileDate, parseAccessList(user.access_list), perShop);
    if (!facts) continue;
    await storeMessage(trx, Number(user.id), facts, now);
    stored++;
  }
  return stored;
}
