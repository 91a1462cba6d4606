import { type ChildProcess, spawn } from "node:child_process";
import { freePort, productionServerCommand } from "@/server/command";

export { freePort };
import { ROOT } from "./cli";

/**
 * A real production server (`npm start`'s process: server/main.ts around Next's handler) on a
 * free port, over the build in .next (`npm test` builds first). Each server gets its own DATABASE_URL.
 */
export interface TestServer {
  url: string;
  port: number;
  pid: number;
  /** settles when the process has exited (by itself or by stop()) */
  exited: Promise<void>;
  exitCode(): number | null;
  stop(): Promise<void>;
  output(): string;
  /** true while the server process runs (it has neither exited nor been killed by a signal) */
  alive(): boolean;
}


export async function startServer(env: Record<string, string>, opts: { waitForHealth?: boolean } = {}): Promise<TestServer> {
  const waitForHealth = opts.waitForHealth ?? true;
  const port = await freePort();
  const { command, args } = productionServerCommand(port, "127.0.0.1");
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stdout?.on("data", (d) => (log += d));
  child.stderr?.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${log}`);
    try {
      const res = await fetch(`${url}/api/health`);
      // Without waitForHealth any answer will do: the server is up, the database may not be.
      if (res.ok || !waitForHealth) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    pid: child.pid!,
    exited,
    exitCode: () => child.exitCode,
    output: () => log,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
