import crypto from "node:crypto";
import type http from "node:http";

/**
 * Browser safety on every answer, pages and API alike (docs/architecture.md, "Reliability and security").
 *
 * The Content-Security-Policy carries a fresh nonce per request. Next reads the nonce from the
 * request's own Content-Security-Policy header and puts it on every script it renders, so no
 * script needs 'unsafe-inline'; 'strict-dynamic' lets those scripts load the app's chunks. Pages
 * are rendered per request (the root layout opts in), so the nonce is never baked into a file.
 * Styles keep 'unsafe-inline' for style attributes (no script runs through them).
 */
export function contentSecurityPolicy(nonce: string, https: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

export function applySecurityHeaders(req: http.IncomingMessage, res: http.ServerResponse, https: boolean): void {
  const nonce = crypto.randomBytes(16).toString("base64");
  const policy = contentSecurityPolicy(nonce, https);
  // For Next's renderer (it takes the nonce from here); a client-sent policy is replaced.
  req.headers["content-security-policy"] = policy;
  delete req.headers["content-security-policy-report-only"];
  res.setHeader("Content-Security-Policy", policy);
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
  res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  if (https) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}
