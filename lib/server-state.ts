/**
 * Process-wide state of the production server that route handlers read: whether this process is
 * the production server, and whether it is draining for a shutdown. On globalThis under one
 * symbol, because the server (server/main.ts) and the route handlers are bundled separately and
 * would otherwise each have their own copy. Its background jobs are in lib/background/runner.ts.
 */
const STATE = Symbol.for("dispute-review.server-state");
interface ServerState {
  productionServer: boolean;
  draining: boolean;
}
const state = (): ServerState => ((globalThis as { [STATE]?: ServerState })[STATE] ??= { productionServer: false, draining: false });

export function setDraining(): void {
  state().draining = true;
}

/** True once SIGTERM has arrived: readiness answers 503 so that no new work is sent here. */
export function isDraining(): boolean {
  return state().draining;
}

/** Called by the production server before Next starts: only it runs the background jobs (not `next dev`). */
export function markProductionServer(): void {
  state().productionServer = true;
}

export function isProductionServer(): boolean {
  return state().productionServer;
}
