import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Dispute review", template: "%s · Dispute review" },
  description: "Chargebacks and pre-arbitration cases reported by the acquirer",
  icons: { icon: "/favicon.svg" },
};

/**
 * Every page is rendered per request: the Content-Security-Policy's nonce (server/security-headers.ts)
 * is new for each answer, so no page may be served from a file rendered at build time.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
