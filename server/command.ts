import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The bundle `next build` makes of server/main.ts (scripts/build-worker.mjs SERVER_BUNDLE). */
export const SERVER_BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.worker/server.cjs");

/**
 * Node's flags for the production server, also written in package.json's `start` script (a test
 * keeps the two equal).
 *
 * - A young generation of 8 MB semi-spaces instead of Node's 16: a lower peak RSS for the same
 *   throughput.
 * - The old generation may grow to three times what the last full collection kept before the
 *   next one (V8 otherwise lets it grow up to four times while collecting is cheap): the peak stays
 *   well under 400 MB; twice cost too much throughput.
 *
 * The measurements: docs/performance.md, "Why the server and the JSON writers are set as they are".
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=200"];

/**
 * How to start the production server, for the demo, the benchmark and the tests: the same process
 * `npm start` runs (node .worker/server.cjs), on a port and optionally one interface.
 */
export function productionServerCommand(port: number, hostname?: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [...SERVER_NODE_FLAGS, SERVER_BUNDLE, "-p", String(port), ...(hostname ? ["-H", hostname] : [])] };
}

/** A port that was free on 127.0.0.1 a moment ago, for a server started by a test or the benchmark. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}
