import crypto from "node:crypto";
import path from "node:path";
import { runCli } from "../helpers/cli";
import { type Backend, tempDir } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { CREDENTIALS, type Fixture, type Kind, writeFixture } from "./fixture";

/**
 * One API test environment: a fresh database of the given backend, the fixture loaded through
 * the real import command, credentials made with the real admin command, and `next start`.
 */
export interface ApiEnv {
  server: TestServer;
  fixture: Fixture;
  databaseUrl: string;
  env: Record<string, string>;
  post(kind: Kind, body: unknown, opts?: PostOptions): Promise<Response>;
}

export interface PostOptions {
  credential?: keyof typeof CREDENTIALS;
  nonce?: string;
  headers?: Record<string, string>;
  rawBody?: string;
  method?: string;
  /** after /api/<kind>, e.g. "/summary" */
  path?: string;
}

export function newNonce(): string {
  return crypto.randomBytes(16).toString("base64url");
}

export function sign(nonce: string, password: string): string {
  return crypto.createHash("sha256").update(nonce + password, "utf8").digest("hex");
}

export function signedHeaders(shop: string, password: string, nonce = newNonce()): Record<string, string> {
  return { "X-Shop-Code": shop, "X-Nonce": nonce, "X-Signature": sign(nonce, password) };
}

async function must(step: Promise<{ code: number; stdout: string; stderr: string }>, what: string) {
  const result = await step;
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** What a server of an API environment was started with: enough for another process to use it. */
export interface ApiEnvInfo {
  url: string;
  port: number;
  pid: number;
  databaseUrl: string;
  env: Record<string, string>;
}

/**
 * Starts an API environment (see `ApiEnv`). `extraEnv` adds to or overrides the server's and the
 * commands' environment; a test that needs a setting of its own, or changes what other tests
 * read (imports, webhooks, settings), starts its own. Read-only tests share one per backend
 * (`sharedApiEnv`).
 */
export async function setupApiEnv(backend: Backend, extraEnv: Record<string, string> = {}): Promise<ApiEnv> {
  const databaseUrl = await backend.create();
  const dir = tempDir("disputes-api-");
  const env = {
    DATABASE_URL: databaseUrl,
    APP_KEY_FILE: path.join(dir, "app.key"),
    RATE_LIMIT_PER_MINUTE: "0",
    ...extraEnv,
  };
  const fixture = writeFixture(path.join(dir, "files"));
  await must(runCli("import.ts", fixture.files, env), "import");
  for (const cred of Object.values(CREDENTIALS)) {
    await must(runCli("admin.ts", ["shop", "add", cred.shop, "--password", cred.password, "--access", cred.access.join(",")], env), "admin shop add");
  }
  const server = await startServer(env);
  return apiEnv(server, fixture, databaseUrl, env);
}

/**
 * The settings of the shared environments: no request throttle and no throttle of failed
 * authentications, since several test files send their requests to the same server at once
 * from the same address.
 */
export const SHARED_ENV_SETTINGS = { RATE_LIMIT_PER_MINUTE: "0", AUTH_FAILURES_PER_MINUTE: "0" } as const;

/**
 * The run's shared API environment of a backend, started once by the run's global setup
 * (tests/global-setup.ts) and used by every test file that only reads the fixture: such a file
 * may add credentials and users of its own names, never import, delete or change settings. Its
 * `server.stop()` leaves the server to the global setup. The fixture is the same deterministic
 * one, written again here for its records.
 */
export async function sharedApiEnv(backend: Backend): Promise<ApiEnv> {
  // vitest's own module, only inside a test file: the global setup imports this module too.
  const { inject } = await import("vitest");
  const info = inject("sharedApiEnvs")[backend.name];
  if (!info) throw new Error(`no shared API environment on ${backend.name}: tests/global-setup.ts starts one per backend of the run`);
  const fixture = writeFixture(path.join(tempDir("disputes-api-shared-"), "files"));
  const exited = new Promise<void>(() => {});
  const server: TestServer = {
    url: info.url,
    port: info.port,
    pid: info.pid,
    exited,
    exitCode: () => null,
    stop: async () => {},
    output: () => "",
    alive: () => true,
  };
  return apiEnv(server, fixture, info.databaseUrl, info.env);
}

function apiEnv(server: TestServer, fixture: Fixture, databaseUrl: string, env: Record<string, string>): ApiEnv {
  const post = (kind: Kind, body: unknown, opts: PostOptions = {}) => {
    const cred = CREDENTIALS[opts.credential ?? "wide"];
    return fetch(`${server.url}/api/${kind}${opts.path ?? ""}`, {
      method: opts.method ?? "POST",
      headers: {
        "Content-Type": "application/json",
        ...signedHeaders(cred.shop, cred.password, opts.nonce),
        ...opts.headers,
      },
      body: opts.method && ["GET", "HEAD"].includes(opts.method) ? undefined : (opts.rawBody ?? JSON.stringify(body)),
    });
  };
  return { server, fixture, databaseUrl, env, post };
}

/** Starts the shared environments of `backends` at once (the run's global setup). */
export async function startSharedApiEnvs(backends: readonly Backend[]): Promise<{ infos: Partial<Record<Backend["name"], ApiEnvInfo>>; stop(): Promise<void> }> {
  const started = await Promise.allSettled(backends.map((backend) => setupApiEnv(backend, SHARED_ENV_SETTINGS)));
  const envs = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const stop = async () => {
    await Promise.all(envs.map((env) => env.server.stop()));
  };
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const infos = Object.fromEntries(
    backends.map((backend, i) => {
      const { server, databaseUrl, env } = envs[i];
      return [backend.name, { url: server.url, port: server.port, pid: server.pid, databaseUrl, env }];
    }),
  );
  return { infos, stop };
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedApiEnvs: Partial<Record<Backend["name"], ApiEnvInfo>>;
  }
}
