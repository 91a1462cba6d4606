import "server-only";
import { getDb } from "@/lib/data/connection/db";
import { mailEnabled } from "@/lib/config";
import { changeMailSettings, mailUser } from "@/lib/mail/settings";
import { type MailSettings, parseMailSettingsPatch } from "@/lib/schemas/mail-settings";
import { dashboardUser, postedBody, routeWith } from "./dashboard-route";
import { ApiError } from "./problem";
import { jsonAnswer } from "./route";

/**
 * /api/mail-settings (docs/api.md, "Mail settings"): the signed-in user's own mail settings. GET
 * reads them, POST changes the fields it names; both answer the settings now and whether this
 * server sends mail at all (docs/mail.md, "Configuration").
 */

const PURPOSE = "mail settings";

const answer = (settings: MailSettings) => jsonAnswer(JSON.stringify({ settings, mail_enabled: mailEnabled() }));

export const mailSettingsRoute = routeWith({
  GET: async (request) => {
    const { userId } = await dashboardUser(request, PURPOSE);
    const user = await mailUser((await getDb()).db, userId);
    if (!user) throw new ApiError(401, `sign in to use ${PURPOSE}`);
    return answer(user.settings);
  },
  POST: async (request) => {
    const { user, body } = await postedBody(request, PURPOSE, parseMailSettingsPatch);
    return answer(await changeMailSettings(await getDb(), user.userId, body));
  },
});
