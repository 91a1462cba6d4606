import { runCli } from "./cli";

/**
 * Credentials and dashboard sessions for tests against a running server, made the way an
 * operator and a user make them: the real admin command, and the real /login form.
 */

async function admin(args: string[], env: Record<string, string>): Promise<void> {
  const result = await runCli("admin.ts", args, env);
  if (result.code !== 0) throw new Error(`admin ${args.slice(0, 2).join(" ")} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
}

/** `npm run admin -- shop add <shop> --password <pw> --access <list>` */
export function addShop(env: Record<string, string>, shop: string, password: string, access: readonly string[] = [shop]): Promise<void> {
  return admin(["shop", "add", shop, "--password", password, "--access", access.join(",")], env);
}

/** `npm run admin -- user add <email> --password <pw> --access <list>` */
export function addUser(env: Record<string, string>, email: string, password: string, access: readonly string[]): Promise<void> {
  return admin(["user", "add", email, "--password", password, "--access", access.join(",")], env);
}

const decodeEntities = (text: string) =>
  text.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/**
 * Signs a dashboard user in as a browser without JavaScript does: loads /login, posts the form
 * back with its own hidden fields (the server action's reference) plus e-mail and password, and
 * returns the `Cookie` header value of the session the server set.
 */
export async function signIn(baseUrl: string, email: string, password: string): Promise<string> {
  const page = await fetch(`${baseUrl}/login`, { signal: AbortSignal.timeout(30_000) });
  const html = await page.text();
  const form = /<form[^>]*method="POST"[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1];
  if (!form) throw new Error(`no sign-in form on /login (${page.status})`);
  const data = new FormData();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)"(?: value="([^"]*)")?\/>/g)) data.append(decodeEntities(m[1]), decodeEntities(m[2] ?? ""));
  data.append("email", email);
  data.append("password", password);
  const res = await fetch(`${baseUrl}/login`, { method: "POST", body: data, redirect: "manual", headers: { Origin: baseUrl }, signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("dr_session="));
  if (res.status !== 303 || !cookie) throw new Error(`sign-in of ${email} failed: ${res.status}`);
  return cookie.split(";")[0];
}
