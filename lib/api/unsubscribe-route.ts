import "server-only";
import { AccountError } from "@/lib/auth/accounts";
import { getDb } from "@/lib/data/connection/db";
import { changeMailSettings, OFF } from "@/lib/mail/settings";
import { readUnsubscribeToken } from "@/lib/mail/unsubscribe";
import type { MailKind, MailSettingsPatch } from "@/lib/schemas/mail-settings";
import { routeWith } from "./dashboard-route";
import { ApiError } from "./problem";
import { readBodyText } from "./read-body";
import { jsonAnswer } from "./route";

/**
 * The one-click unsubscribe link (docs/mail.md, "Unsubscribing"; RFC 8058). A mail client POSTs
 * `List-Unsubscribe=One-Click` to `/unsubscribe/<token>` without a cookie; the proxy hands POSTs
 * of that path to this route, and GETs to the page that confirms (app/unsubscribe/[token]). The
 * token alone says who and what: it can turn that one kind of mail off, or back on from the page
 * (`undo`), and nothing else.
 */

const ONE_CLICK = "One-Click";
/** What `undo` may turn back on, per kind: the digest's former frequency, or the alerts. */
const UNDO: Record<MailKind, Record<string, MailSettingsPatch>> = {
  digest: { daily: { digest: "daily" }, weekly: { digest: "weekly" } },
  alert: { on: { alerts: true } },
};

const notFound = () => new ApiError(404, "this unsubscribe link is not valid: it may have been altered or its user removed");

/** The posted form's fields: application/x-www-form-urlencoded or multipart/form-data, as RFC 8058 allows. */
async function formFields(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  const text = await readBodyText(request);
  if (/^multipart\/form-data/i.test(type)) {
    try {
      const form = await new Response(text, { headers: { "content-type": type } }).formData();
      const fields = new URLSearchParams();
      for (const [name, value] of form) if (typeof value === "string") fields.append(name, value);
      return fields;
    } catch {
      throw new ApiError(400, "the multipart body could not be read");
    }
  }
  return new URLSearchParams(text);
}

export const unsubscribeRoute = routeWith({
  POST: async (request, context) => {
    const link = readUnsubscribeToken((await context.params).token ?? "");
    const fields = await formFields(request);
    if (!link) throw notFound();
    const undo = fields.get("undo");
    let patch: MailSettingsPatch;
    if (fields.get("List-Unsubscribe") === ONE_CLICK && undo === null) patch = OFF[link.kind];
    else if (undo !== null && Object.hasOwn(UNDO[link.kind], undo) && !fields.has("List-Unsubscribe")) patch = UNDO[link.kind][undo];
    else {
      throw new ApiError(400, `the body must be List-Unsubscribe=One-Click (or undo=${Object.keys(UNDO[link.kind]).join("|")} to turn it back on)`);
    }
    const settings = await changeMailSettings(await getDb(), link.userId, patch).catch((err: unknown) => {
      throw err instanceof AccountError ? notFound() : err;
    });
    return jsonAnswer(JSON.stringify({ kind: link.kind, on: link.kind === "digest" ? settings.digest !== "off" : settings.alerts }));
  },
});
