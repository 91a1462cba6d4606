/**
 * Runs once when the server starts: bring the database schema up to date before any request, and
 * in the production server (server/main.ts) start its background jobs (lib/background/runner.ts, stopped on SIGTERM): sending
 * webhooks (lib/webhooks/dispatcher.ts) and mail (lib/mail/dispatcher.ts), and watching the import inbox (lib/import/inbox.ts);
 * and give the metrics their backlog and replica readers (lib/metrics.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getDb } = await import("@/lib/data/connection/db");
    await getDb().catch((err: unknown) => {
      // The server still starts; requests answer 503 until the database can be reached.
      console.error("database not ready at start:", err instanceof Error ? err.message : err);
    });
    const { isProductionServer } = await import("@/lib/server-state");
    if (isProductionServer()) {
      // The metrics' backlog gauges, read through the server's connection at each scrape (docs/api.md, "Metrics").
      const { setBacklogReader } = await import("@/lib/metrics");
      const { webhookBacklog } = await import("@/lib/webhooks/store");
      const { mailBacklog } = await import("@/lib/mail/store");
      setBacklogReader(async () => {
        const { db } = await getDb();
        const [webhooks, mail] = await Promise.all([webhookBacklog(db), mailBacklog(db)]);
        return { webhooks, mail };
      });
      // With DATABASE_REPLICA_URLS: each replica's state and lag, and where reads went (docs/replicas.md).
      const { readServerStates } = await import("@/lib/data/connection/replicas");
      const { setReadServerReader } = await import("@/lib/metrics");
      setReadServerReader(readServerStates);
      const { startWebhookDispatcher } = await import("@/lib/webhooks/dispatcher");
      startWebhookDispatcher();
      // Mail only when SMTP_URL is set (docs/mail.md, "Configuration").
      const { startMailDispatcher } = await import("@/lib/mail/dispatcher");
      startMailDispatcher();
      // The import inbox only when IMPORT_INBOX is set (docs/api.md, "Import inbox").
      const { startInbox } = await import("@/lib/import/inbox");
      startInbox();
    }
  }
}
