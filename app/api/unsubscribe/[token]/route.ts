import { unsubscribeRoute } from "@/lib/api/unsubscribe-route";

export const dynamic = "force-dynamic";

/**
 * The POSTs of /unsubscribe/<token> (rewritten here by proxy.ts; docs/mail.md, "Unsubscribing"):
 * `List-Unsubscribe=One-Click` turns that kind of mail off, `undo=...` turns it back on.
 */
export const { GET, POST, HEAD, PUT, PATCH, DELETE, OPTIONS } = unsubscribeRoute;
