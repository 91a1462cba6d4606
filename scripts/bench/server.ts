/**
 * The production server under test (`next start` on 127.0.0.1), in its own process group so
 * that stopping it also stops any child it forked, and a sampler of the resident memory of the
 * whole process tree (the server and its children) from /proc.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, productionServerCommand, SERVER_BUNDLE } from "@/server/command";

export { freePort };

export const ROOT = path.resolve(import.meta.dirname, "../..");


/** The pid and every descendant's pid, read from /proc/<pid>/task/<tid>/children. */
function processTree(root: number): number[] {
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pids[i]}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        for (const child of fs.readFileSync(`/proc/${pids[i]}/task/${tid}/children`, "utf8").split(" ")) {
          if (child.trim()) pids.push(Number(child));
        }
      } catch {
        // the task ended meanwhile
      }
    }
  }
  return pids;
}

function rssKb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Samples the summed RSS of a process tree every `everyMs`; `peak()` in MB. */
export class RssSampler {
  private peakKb = 0;
  private peakProcesses = 0;
  private timer: NodeJS.Timeout;
  constructor(
    private readonly pid: number,
    everyMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }
  sample() {
    const pids = processTree(this.pid);
    const kb = pids.reduce((n, pid) => n + rssKb(pid), 0);
    if (kb > this.peakKb) {
      this.peakKb = kb;
      this.peakProcesses = pids.length;
    }
  }
  stop() {
    clearInterval(this.timer);
  }
  peak(): { peakRssMb: number; processes: number } {
    return { peakRssMb: Math.round(this.peakKb / 1024), processes: this.peakProcesses };
  }
}

export interface RunningServer {
  url: URL;
  pid: number;
  rss: RssSampler;
  startSeconds: number;
  output(): string;
  stop(): Promise<void>;
}

/** Keeps the last `max` characters of a stream's output. */
function tail(max: number) {
  let text = "";
  return {
    add: (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.length > max) text = text.slice(-max);
    },
    text: () => text,
  };
}

/** Ends a detached child's whole process group: SIGTERM, then SIGKILL after `graceMs`. */
export function stopGroup(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise((resolve) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
    const pid = child.pid;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      kill("SIGKILL");
      resolve();
    }, graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      kill("SIGKILL"); // any grandchild left behind in the group
      resolve();
    });
    kill("SIGTERM");
  });
}

/** Last resort on process exit: no server outlives the benchmark. */
export function killGroupNow(child: ChildProcess | undefined) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** `root`: the checkout whose build to serve (another one's, for a before/after study); default this one. */
export async function startServer(env: Record<string, string>, onSpawn: (child: ChildProcess) => void, root = ROOT): Promise<RunningServer> {
  if (!fs.existsSync(path.join(root, ".next/BUILD_ID"))) throw new Error(`no production build in ${root}: run \`npm run build\` there first`);
  const port = await freePort();
  const started = performance.now();
  const { command, args } = productionServerCommand(port, "127.0.0.1");
  // The server bundle of that checkout: productionServerCommand names this one's.
  const bundle = args.indexOf(SERVER_BUNDLE);
  if (root !== ROOT) args[bundle] = path.join(root, path.relative(ROOT, SERVER_BUNDLE));
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env, NODE_ENV: "production", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  onSpawn(child);
  const log = tail(20_000);
  child.stdout?.on("data", log.add);
  child.stderr?.on("data", log.add);
  const rss = new RssSampler(child.pid!);
  const url = new URL(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      rss.stop();
      throw new Error(`next start exited (${child.exitCode ?? child.signalCode}): ${log.text().slice(-2000)}`);
    }
    try {
      if ((await fetch(new URL("/api/health", url), { signal: AbortSignal.timeout(5000) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      rss.stop();
      await stopGroup(child);
      throw new Error(`next start did not answer /api/health within 120 s: ${log.text().slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    rss,
    startSeconds: Math.round((performance.now() - started) / 100) / 10,
    output: log.text,
    stop: async () => {
      rss.sample();
      rss.stop();
      await stopGroup(child);
    },
  };
}
