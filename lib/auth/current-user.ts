import "server-only";
import { cookies, headers } from "next/headers";
import { flag } from "@/lib/config";
import { currentRequest } from "@/lib/log";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/lib/data/connection/db";
import { findSession, sessionTokenFrom } from "./sessions";

/** The signed-in dashboard user, read from the session cookie and checked against the database. */
export interface CurrentUser {
  userId: number;
  email: string;
  access: string[];
  expiresAt: number;
}

/** Header the proxy sets with the requested path and query, so a server page can name its own URL. */
export const REQUEST_PATH_HEADER = "x-dr-request-path";

/** One database look-up per request, however many components ask. */
export const getCurrentUser = cache(async (): Promise<CurrentUser | null> => {
  const store = await cookies();
  const token = sessionTokenFrom((name) => store.get(name)?.value);
  if (!token) return null;
  const { db } = await getDb();
  return findSession(db, token);
});

/**
 * `next` values that are safe to send the browser to after sign-in: a path on this site only.
 * "//evil.example" and "/\evil.example" are protocol-relative to browsers, so both are refused.
 */
export function safeNextPath(next: unknown, fallback = "/worklist"): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2000) return fallback;
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return fallback;
  try {
    const url = new URL(next, "http://same-site.invalid");
    if (url.origin !== "http://same-site.invalid") return fallback;
    if (url.pathname === "/login" || url.pathname.startsWith("/api/")) return fallback;
    return url.pathname + url.search;
  } catch {
    return fallback;
  }
}

export function loginUrl(next: string, reason?: "expired"): string {
  const params = new URLSearchParams({ next: safeNextPath(next) });
  if (reason) params.set("reason", reason);
  return `/login?${params}`;
}

/** The user, or a redirect to the sign-in page that returns here afterwards. */
export async function requireUser(): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (user) return user;
  const path = (await headers()).get(REQUEST_PATH_HEADER) ?? "/worklist";
  const store = await cookies();
  const hadCookie = Boolean(sessionTokenFrom((name) => store.get(name)?.value));
  redirect(loginUrl(path, hadCookie ? "expired" : undefined));
}

/**
 * Secure cookies wherever the browser reached us over https: directly, or through a proxy when
 * TRUST_PROXY says one sits in front (server/main.ts decides; a client-sent X-Forwarded-Proto is
 * never believed otherwise). COOKIE_SECURE=true|false overrides.
 */
export async function requestIsHttps(): Promise<boolean> {
  if (process.env.COOKIE_SECURE?.trim()) return flag("COOKIE_SECURE", false);
  return currentRequest()?.https ?? (await headers()).get("x-dr-https") === "1";
}
