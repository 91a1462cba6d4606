"use server";

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { requestIsHttps, safeNextPath } from "@/lib/auth/current-user";
import { verifyUserLogin } from "@/lib/auth/accounts";
import { createSession, deleteSession, SESSION_COOKIE } from "@/lib/auth/sessions";
import { getDb } from "@/lib/data/db";

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
    const { db } = await getDb();
    const user = await verifyUserLogin(db, email, password);
    if (!user) return { error: GENERIC_ERROR, email };
    const session = await createSession(db, user.userId);
    (await cookies()).set(SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: "lax",
      secure: await requestIsHttps(),
      path: "/",
      expires: new Date(session.expiresAt),
    });
    target = next;
  } catch (err) {
    console.error("sign-in failed:", err);
    return { error: "Signing in is not possible right now. Please try again in a moment.", email };
  }
  // Outside the try: redirect() works by throwing.
  redirect(target);
}

export async function signOut(): Promise<void> {
  const store = await cookies();
  const token = store.get(SESSION_COOKIE)?.value;
  if (token) {
    try {
      const { db } = await getDb();
      await deleteSession(db, token);
    } catch (err) {
      // The cookie still goes; the server-side row expires on its own.
      console.error("sign-out could not delete the session:", err);
    }
  }
  store.delete(SESSION_COOKIE);
  redirect("/login?reason=signed-out");
}
