import { expect, test } from "@playwright/test";
import { hashToken, SESSION_COOKIE } from "@/lib/auth/sessions";
import { gridReady, ON_POSTGRES, signInWithForm, testDb, USERS } from "./helpers";

test.describe("sign-in", ON_POSTGRES, () => {
  test("a signed-out visit goes to /login and returns to the same view after sign-in", async ({ page }) => {
    await page.goto("/chargebacks?from=2026-01-10&sort=FILE_DATE&dir=desc");
    await expect(page).toHaveURL(/\/login\?next=/);
    expect(new URL(page.url()).searchParams.get("next")).toBe("/chargebacks?from=2026-01-10&sort=FILE_DATE&dir=desc");
    await page.getByLabel("E-mail address").fill(USERS.merchant.email);
    await page.getByLabel("Password").fill(USERS.merchant.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/chargebacks\?from=2026-01-10&sort=FILE_DATE&dir=desc$/);
    await gridReady(page);
    await expect(page.getByLabel("File date from")).toHaveValue("2026-01-10");
  });

  test("wrong credentials get one generic message", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("E-mail address").fill(USERS.merchant.email);
    await page.getByLabel("Password").fill("wrong-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("The e-mail address or password is not correct.");
    await page.getByLabel("E-mail address").fill("nobody@e2e.test");
    await page.getByLabel("Password").fill(USERS.merchant.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("form").getByRole("alert")).toHaveText("The e-mail address or password is not correct.");
  });

  test("a next parameter to another site is ignored", async ({ page }) => {
    await page.goto("/login?next=//evil.example/steal");
    await page.getByLabel("E-mail address").fill(USERS.merchant.email);
    await page.getByLabel("Password").fill(USERS.merchant.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/worklist$/);
  });

  test("the header shows the user and their shops; the cookie is HttpOnly and SameSite", async ({ page, context }) => {
    await signInWithForm(page);
    await expect(page.getByTestId("signed-in-user")).toContainText(USERS.merchant.email);
    await expect(page.getByTestId("signed-in-user")).toContainText("SHOP_A, SHOP_B");
    const cookie = (await context.cookies()).find((c) => c.name === "dr_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Lax");
  });

  test("sign-out ends the session on the server", async ({ page, context }) => {
    await signInWithForm(page);
    const token = (await context.cookies()).find((c) => c.name === "dr_session")!.value;
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole("status")).toHaveText("You have signed out.");
    // The old token is dead on the server too, not just deleted from this browser.
    await context.addCookies([{ name: "dr_session", value: token, url: page.url() }]);
    const response = await page.request.post("/api/chargeback", { data: {}, headers: { Origin: new URL(page.url()).origin } });
    expect(response.status()).toBe(401);
    await page.goto("/chargebacks");
    await expect(page).toHaveURL(/\/login/);
  });

  test("an expired session lands on /login and comes back after signing in", async ({ page }) => {
    await signInWithForm(page, USERS.merchant, "/pre-arbitration?size=25");
    // This page's session only: other tests run beside this one, signed in as the same user.
    const token = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!.value;
    expect(await testDb().run("update sessions set expires_at = ? where token_hash = ?", [Date.now() - 1000, hashToken(token)])).toBe(1);
    // A grid request still in flight may meet the expiry first and send the page to /login
    // itself, aborting this reload: either way the next assertion is what must hold.
    await page.reload().catch((error: Error) => {
      if (!/ERR_ABORTED|frame was detached/.test(error.message)) throw error;
    });
    await expect(page).toHaveURL(/\/login\?.*reason=expired/);
    await expect(page.getByRole("status")).toContainText("session has ended");
    await page.getByLabel("E-mail address").fill(USERS.merchant.email);
    await page.getByLabel("Password").fill(USERS.merchant.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/pre-arbitration\?size=25$/);
  });
});
