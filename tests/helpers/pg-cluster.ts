import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./server";

/**
 * A private PostgreSQL cluster for fault tests: initdb in a temporary folder, its own port on
 * 127.0.0.1, started and stopped with pg_ctl. Unlike the shared server of TEST_DATABASE_URL it
 * may be stopped under load. As root the PostgreSQL programs run as the `postgres` OS user.
 */

/** The bin folder of the newest local PostgreSQL (PG_BIN overrides), or undefined when none. */
export const PG_BIN: string | undefined = (() => {
  const candidates = process.env.PG_BIN ? [process.env.PG_BIN] : listVersionDirs().map((v) => `/usr/lib/postgresql/${v}/bin`);
  return candidates.find((dir) => fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl")));
})();

function listVersionDirs(): string[] {
  try {
    return fs
      .readdirSync("/usr/lib/postgresql")
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

export interface PrivateCluster {
  /** a DATABASE_URL for the cluster's `disputes` database (trust authentication, user postgres) */
  url: string;
  port: number;
  /** pg_ctl start, waiting until connections are accepted */
  start(): Promise<void>;
  /** pg_ctl stop, waiting until the server is gone ("fast": sessions are terminated with 57P01) */
  stop(mode?: "smart" | "fast" | "immediate"): Promise<void>;
  /** SIGSTOP to the server and every one of its processes: connections stay open, nothing answers */
  freeze(): void;
  /** SIGCONT to the processes `freeze` stopped */
  thaw(): void;
  /** stops the cluster whatever its state and removes its folder; safe to call more than once */
  destroy(): Promise<void>;
  /** the cluster's server log */
  log(): string;
}

const asRoot = process.getuid?.() === 0;

/** argv that runs a PostgreSQL program as the postgres OS user when we are root */
function command(program: string, args: string[]): [string, string[]] {
  const bin = path.join(PG_BIN!, program);
  return asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function run(program: string, args: string[], cwd: string, timeoutMs = 60_000): Promise<string> {
  const [file, argv] = command(program, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { cwd, timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${program} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

export async function createPrivateCluster(): Promise<PrivateCluster> {
  if (!PG_BIN) throw new Error("no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; set PG_BIN");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-pgcluster-"));
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(dir, uid, gid);
  }
  fs.chmodSync(dir, 0o700);

  let destroyed = false;
  // Last resort when the test process ends without afterAll (a crash, a kill of the worker).
  const onExit = () => {
    if (destroyed) return;
    const [file, argv] = command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    spawnSync(file, argv, { cwd: dir, stdio: "ignore", timeout: 20_000 });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", onExit);

  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    process.off("exit", onExit);
    try {
      if (fs.existsSync(path.join(data, "postmaster.pid"))) await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "20", "stop"], dir, 30_000);
    } catch {
      // already stopped, or never started
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  try {
    await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], dir);
    const port = await freePort();
    // A small, throwaway server: only this test connects, and its data need not survive a crash.
    fs.appendFileSync(
      path.join(data, "postgresql.conf"),
      [
        `port = ${port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dir}'`,
        "max_connections = 50",
        "shared_buffers = 16MB",
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        "",
      ].join("\n"),
    );
    const start = async () => {
      await run("pg_ctl", ["-D", data, "-l", logFile, "-w", "-t", "60", "start"], dir, 90_000);
    };
    const stop = async (mode: "smart" | "fast" | "immediate" = "fast") => {
      await run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"], dir, 90_000);
    };
    await start();
    const admin = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" });
    await admin.connect();
    try {
      await admin.query("create database disputes");
    } finally {
      await admin.end();
    }
    let frozen: number[] = [];
    const processes = () => {
      const postmaster = Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      const children = spawnSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
      return [postmaster, ...children];
    };
    const thaw = () => {
      for (const pid of frozen.splice(0)) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {
          // gone meanwhile
        }
      }
    };
    // Until no process is left running: a backend the postmaster forked between the listing and
    // its own stop (a pool opening a connection just then) would otherwise go on serving.
    const freeze = () => {
      frozen = [];
      for (let fresh = processes(); fresh.length; fresh = processes().filter((pid) => !frozen.includes(pid))) {
        for (const pid of fresh) process.kill(pid, "SIGSTOP");
        frozen.push(...fresh);
      }
    };
    return {
      url: `postgres://postgres@127.0.0.1:${port}/disputes`,
      port,
      start,
      stop,
      freeze,
      thaw,
      destroy: async () => {
        thaw();
        await destroy();
      },
      log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8") : ""),
    };
  } catch (err) {
    await destroy();
    throw err;
  }
}
