import { mailSettingsRoute } from "@/lib/api/mail-settings-route";

export const dynamic = "force-dynamic";

/** docs/api.md, "Mail settings": GET reads the signed-in user's mail settings, POST changes them. */
export const { GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS } = mailSettingsRoute;
