"use server";

import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { requestIsHttps, safeNextPath } from "@/lib/auth/current-user";
import { verifyUserLogin } from "@/lib/auth/accounts";
import { createSession, deleteSession, SESSION_COOKIE_NAMES, sessionCookieName, sessionTokenFrom } from "@/lib/auth/sessions";
import { countLoginAttempt, noteLoginSuccess, purgeLoginAttempts } from "@/lib/auth/login-throttle";
import { getDb } from "@/lib/data/connection/db";
import { currentRequest, errorFields, log, notePrincipal } from "@/lib/log";

export interface LoginState {
  error?: string;
  email?: string;
}

// One message for every failure: the page must not tell which e-mail addresses have accounts.
const GENERIC_ERROR = "The e-mail address or password is not correct.";

export async function signIn(_previous: LoginState, form: FormData): Promise<LoginState> {
  const email = String(form.get("email") ?? "").slice(0, 320);
  const password = String(form.get("password") ?? "").slice(0, 1000);
  const next = safeNextPath(form.get("next"));
  if (!email || !password) return { error: GENERIC_ERROR, email };
  let target: string;
  try {
    const database = await getDb();
    const address = await clientAddressOfRequest();
    const verdict = await countLoginAttempt(database, email, address);
    if (!verdict.allowed) {
      const minutes = verdict.retryMinutes === 1 ? "1 minute" : `${verdict.retryMinutes} minutes`;
      return { error: `Too many sign-in attempts. Please try again in ${minutes}.`, email };
    }
    const user = await verifyUserLogin(database.db, email, password);
    if (!user) return { error: GENERIC_ERROR, email };
    notePrincipal(`user:${user.userId}`);
    await noteLoginSuccess(database, email, address);
    if (Math.random() < 0.05) await purgeLoginAttempts(database);
    const session = await createSession(database.db, user.userId);
    const secure = await requestIsHttps();
    (await cookies()).set(sessionCookieName(secure), session.token, {
      httpOnly: true,
      sameSite: "lax",
      secure,
      path: "/",
      expires: new Date(session.expiresAt),
    });
    target = next;
  } catch (err) {
    log.error({ request_id: currentRequest()?.requestId, ...errorFields(err) }, "sign-in failed");
    return { error: `Signing in is not possible right now. Please try again in a moment.${referenceOf()}`, email };
  }
  // Outside the try: redirect() works by throwing.
  redirect(target);
}

/** " (reference: <request id>)" for a message the user may pass on to support. */
function referenceOf(): string {
  const id = currentRequest()?.requestId;
  return id ? ` (reference: ${id})` : "";
}

/** The client's address as the production server determined it (server/main.ts). */
async function clientAddressOfRequest(): Promise<string> {
  return currentRequest()?.clientAddress ?? (await headers()).get("x-dr-client-address") ?? "unknown";
}

export async function signOut(): Promise<void> {
  const store = await cookies();
  const token = sessionTokenFrom((name) => store.get(name)?.value);
  if (token) {
    try {
      const { db } = await getDb();
      await deleteSession(db, token);
    } catch (err) {
      // The cookie still goes; the server-side row expires on its own.
      log.warn({ request_id: currentRequest()?.requestId, ...errorFields(err) }, "sign-out could not delete the session");
    }
  }
  // A __Host- cookie is only replaced by one with the same attributes (Secure, Path=/).
  for (const name of SESSION_COOKIE_NAMES) {
    if (store.get(name)) store.set(name, "", { path: "/", secure: name.startsWith("__Host-"), httpOnly: true, sameSite: "lax", maxAge: 0 });
  }
  redirect("/login?reason=signed-out");
}
