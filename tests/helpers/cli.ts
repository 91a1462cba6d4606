import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { COMPILED_COMMANDS, compiledCommandPath, NODE_ARGS } from "./compiled-commands";

export const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

export interface CliResult {
  code: number;
  /** the signal that ended the command, if one did */
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** what the command has printed so far */
  stdout(): string;
  /** resolves when the command has ended */
  done: Promise<CliResult>;
  /**
   * Kills the command and every process it started (tsx, for a command that is not compiled,
   * runs the script in a child process of its own), as a crash or a power cut would: the whole
   * process group, at once.
   */
  killGroup(signal?: NodeJS.Signals): void;
}


/**
 * How a command starts: compiled by the run's global setup (compiled-commands.ts) with node, or
 * else its TypeScript through tsx, as `npm run` does.
 */
function commandLine(script: string): [string, string[]] {
  const nodeArgs = NODE_ARGS[script] ?? [];
  if ((COMPILED_COMMANDS as readonly string[]).includes(script)) {
    const compiled = compiledCommandPath(script);
    if (!fs.existsSync(compiled)) throw new Error(`${path.relative(ROOT, compiled)} is missing: the test run's global setup compiles it`);
    return [process.execPath, [...nodeArgs, compiled]];
  }
  return [TSX, [...nodeArgs, path.join(ROOT, "scripts", script)]];
}

/**
 * Starts one of the project's commands (scripts/<name>.ts) as a real child process and returns
 * at once. `group`: the command leads a process group of its own, so that killGroup reaches it all.
 */
export function startCli(script: string, args: string[], env: Record<string, string>, opts: { stdin?: string; group?: boolean } = {}): RunningCli {
  const [command, commandArgs] = commandLine(script);
  const child = spawn(command, [...commandArgs, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: opts.group ?? false,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
  child.stdin.end(opts.stdin ?? "");
  return {
    child,
    stdout: () => stdout,
    done,
    killGroup(signal = "SIGKILL") {
      if (!opts.group) throw new Error("killGroup needs a command started with { group: true }");
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    },
  };
}

/** Runs one of the project's commands (scripts/<name>.ts) as a real child process. */
export function runCli(script: string, args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return startCli(script, args, env, { stdin }).done;
}
