/**
 * Process-wide state of the production server that route handlers read: whether it is draining
 * for a shutdown. On globalThis, because the server (server/main.ts) and the route handlers are
 * bundled separately and would otherwise each have their own copy.
 */
const shared = globalThis as unknown as { __drDraining?: boolean };

export function setDraining(): void {
  shared.__drDraining = true;
}

/** True once SIGTERM has arrived: readiness answers 503 so that no new work is sent here. */
export function isDraining(): boolean {
  return shared.__drDraining === true;
}

const server = globalThis as unknown as {
  __drProductionServer?: boolean;
  __drWebhookDispatcher?: { stop(timeoutMs: number): Promise<void> };
  __drMailDispatcher?: { stop(timeoutMs: number): Promise<void> };
  __drInbox?: { stop(timeoutMs: number): Promise<void> };
};

/** Called by the production server before Next starts: only it sends webhooks (not `next dev`). */
export function markProductionServer(): void {
  server.__drProductionServer = true;
}

export function isProductionServer(): boolean {
  return server.__drProductionServer === true;
}

/** The webhook dispatcher instrumentation.ts started in this process, for the shutdown to stop. */
export function runningWebhookDispatcher(): { stop(timeoutMs: number): Promise<void> } | undefined {
  return server.__drWebhookDispatcher;
}

/** The mail dispatcher instrumentation.ts started in this process (only with SMTP_URL), for the shutdown to stop. */
export function runningMailDispatcher(): { stop(timeoutMs: number): Promise<void> } | undefined {
  return server.__drMailDispatcher;
}

/** The import inbox instrumentation.ts started in this process (only with IMPORT_INBOX), for the shutdown to stop. */
export function runningInbox(): { stop(timeoutMs: number): Promise<void> } | undefined {
  return server.__drInbox;
}
