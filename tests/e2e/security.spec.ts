import { expect, type Page, test } from "@playwright/test";
import { runCli } from "../helpers/cli";
import { startServer } from "../helpers/server";
import { gridReady, ON_POSTGRES, signIn, USERS } from "./helpers";

/** Records every Content-Security-Policy violation the page reports, from its first script on. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective}: ${e.blockedURI || "inline"}`));
  });
  const console: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(message.text())) console.push(message.text());
  });
  return async () => [...console, ...(await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []))];
}

test.describe("browser safety", () => {
  test("the dashboard works under a nonce Content-Security-Policy without a single violation", async ({ page }) => {
    const violations = await watchViolations(page);
    const login = await page.goto("/login");
    const policy = login!.headers()["content-security-policy"];
    expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(login!.headers()["x-frame-options"]).toBe("DENY");
    expect(login!.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);

    await signIn(page, USERS.merchant, "/chargebacks");
    await gridReady(page);
    await page.locator("tbody tr[data-row-index]").first().click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await page.keyboard.press("Escape");
    await page.goto("/pre-arbitration");
    await gridReady(page);
    await page.goto("/docs");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect(await violations()).toEqual([]);

    // Over plain http the session cookie is HttpOnly, SameSite and not __Host- (which needs Secure).
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name.endsWith("dr_session"));
    expect(session).toMatchObject({ name: "dr_session", httpOnly: true, sameSite: "Lax", path: "/" });
  });

  test("the dashboard cannot be framed by another page", async ({ page }) => {
    await page.setContent(`<iframe id="f" src="${process.env.E2E_BASE_URL}/login"></iframe>`);
    const frame = page.frameLocator("#f");
    // The browser refuses to render it: nothing of the sign-in form appears inside the frame.
    await expect(frame.getByLabel("E-mail address")).toHaveCount(0, { timeout: 3000 });
  });
});

test.describe("behind a trusted https proxy", () => {
  test("the session cookie is Secure and __Host- prefixed, HSTS is sent, and the dashboard works with it", async ({ page }) => {
    // A second server on the same database that believes X-Forwarded-Proto (TRUST_PROXY=true),
    // reached as a TLS-terminating proxy would forward it.
    const server = await startServer({ DATABASE_URL: process.env.E2E_DATABASE_URL!, TRUST_PROXY: "true" });
    try {
      await page.setExtraHTTPHeaders({ "X-Forwarded-Proto": "https" });
      const login = await page.goto(`${server.url}/login?next=%2Fchargebacks`);
      expect(login!.headers()["strict-transport-security"]).toMatch(/^max-age=\d+/);
      await page.getByLabel("E-mail address").fill(USERS.merchant.email);
      await page.getByLabel("Password").fill(USERS.merchant.password);
      const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/login");
      await page.getByRole("button", { name: "Sign in" }).click();
      const setCookie = (await (await answered).allHeaders())["set-cookie"] ?? "";
      expect(setCookie).toMatch(/^__Host-dr_session=[^;]+;/);
      expect(setCookie).toMatch(/; Secure/i);
      expect(setCookie).toMatch(/; HttpOnly/i);
      expect(setCookie).toMatch(/; Path=\//);
      expect(setCookie).not.toMatch(/Domain=/i);
      await page.waitForURL((url) => url.pathname === "/chargebacks");
      await gridReady(page);
    } finally {
      await server.stop();
    }
  });
});

test.describe("sign-in throttling", ON_POSTGRES, () => {
  /** One sign-in, waiting for the server action's answer (the message may read the same as before). */
  async function attempt(page: Page, email: string, password: string) {
    await page.getByLabel("E-mail address").fill(email);
    await page.getByLabel("Password").fill(password);
    const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await answered;
  }
  const message = (page: Page) => page.locator("form [role=alert]");

  test("five failures lock an account for the window, even against its right password; other accounts go on", async ({ page }) => {
    // A dozen scrypt checks and a command: more than the default minute on a busy 2-core machine.
    test.setTimeout(150_000);
    const locked = { email: "locked@e2e.test", password: "locked-password-1" };
    const added = await runCli("admin.ts", ["user", "add", locked.email, "--password", locked.password, "--access", USERS.single.access.join(",")], {
      DATABASE_URL: process.env.E2E_DATABASE_URL!,
    });
    expect(added.code, added.stderr).toBe(0);

    await page.goto("/login");
    for (let i = 0; i < 5; i++) {
      await attempt(page, locked.email, `wrong-password-${i}`);
      await expect(message(page)).toHaveText("The e-mail address or password is not correct.");
    }
    await attempt(page, locked.email, locked.password);
    await expect(message(page)).toHaveText(/^Too many sign-in attempts\. Please try again in 1[45] minutes\.$/);
    await expect(page).toHaveURL(/\/login/);
    // The same for an address that has no account: nobody learns which e-mail addresses exist.
    for (let i = 0; i < 5; i++) await attempt(page, "nobody@e2e.test", `guess-${i}`);
    await attempt(page, "nobody@e2e.test", "guess-again");
    await expect(message(page)).toHaveText(/^Too many sign-in attempts/);

    // Another account signs in as usual.
    await attempt(page, USERS.single.email, USERS.single.password);
    await page.waitForURL((url) => !url.pathname.startsWith("/login"));
  });
});
