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
