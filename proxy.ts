import { type NextRequest, NextResponse } from "next/server";

/**
 * An optimistic check in front of the dashboard pages: without a session cookie there is no
 * point rendering anything, so the browser goes straight to /login?next=<where it was going>.
 * The real check (is the session valid and unexpired?) happens against the database in the
 * dashboard layout; this file only reads the cookie, as Next recommends for proxies.
 * The API routes authenticate every request themselves and are not matched here.
 *
 * The one-click unsubscribe link (docs/mail.md, "Unsubscribing") is one address for two things
 * and needs no sign-in: a GET shows the page that confirms, a POST (what a mail client sends)
 * goes to its route, since a Next segment cannot hold both a page and a route.
 */

// lib/auth/sessions.ts SESSION_COOKIE_NAMES; kept literal so the proxy bundle stays tiny
const SESSION_COOKIES = ["__Host-dr_session", "dr_session"];
const REQUEST_PATH_HEADER = "x-dr-request-path"; // lib/auth/current-user.ts

const UNSUBSCRIBE = /^\/unsubscribe\/[^/]+$/;

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (UNSUBSCRIBE.test(pathname)) {
    if (request.method !== "POST") return NextResponse.next();
    const url = request.nextUrl.clone();
    url.pathname = `/api${pathname}`;
    return NextResponse.rewrite(url);
  }
  const target = pathname + search;
  if (!SESSION_COOKIES.some((name) => request.cookies.get(name)?.value)) {
    const url = request.nextUrl.clone();
    url.pathname = "/login";
    url.search = "";
    url.searchParams.set("next", target);
    return NextResponse.redirect(url);
  }
  // Lets a server component name the page it renders, for a redirect back after sign-in.
  const headers = new Headers(request.headers);
  headers.set(REQUEST_PATH_HEADER, target);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Everything except the sign-in page, the API and its reference, and Next's own assets.
  matcher: ["/((?!login|api/|docs|_next/|favicon\\.ico|robots\\.txt).*)"],
};
