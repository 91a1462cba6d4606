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
