import { expect, type Page, test } from "@playwright/test";
import { unsubscribeToken } from "@/lib/mail/unsubscribe";
import { ON_POSTGRES, screenshotPath, seriousAxeViolations, signIn, testDb, USERS } from "./helpers";

/**
 * The settings page (docs/mail.md, "Settings") and the unsubscribe page (docs/mail.md,
 * "Unsubscribing") in a real browser: the browser's zone offered until the user saves, a zone
 * found by typing part of its name, the choice kept on the server, the page saying plainly that
 * this server sends no mail (the test server has no SMTP_URL); the unsubscribe link's page
 * changing nothing until its button is pressed, then turning that kind off and back on.
 */

const USER = USERS.single;

async function userId(): Promise<number> {
  const row = await testDb().get<{ id: number }>("select id from users where email = ?", [USER.email]);
  return Number(row.id);
}

async function storedSettings(): Promise<Record<string, unknown> | null> {
  const rows = await testDb().all("select digest, digest_at, zone, alerts from mail_settings where user_id = ?", [await userId()]);
  return rows[0] ? { ...rows[0], alerts: Number(rows[0].alerts) } : null;
}

/** The token the server puts in this user's mail: the same key (the key file beside the SQLite database, or ./data's). */
async function tokenFor(kind: "digest" | "alert"): Promise<string> {
  process.env.DATABASE_URL = process.env.E2E_DATABASE_URL;
  delete process.env.APP_SECRET;
  delete process.env.APP_KEY_FILE;
  return unsubscribeToken(await userId(), kind);
}

const zoneField = (page: Page) => page.getByRole("combobox", { name: "Time zone" });

test.describe.configure({ mode: "serial" });

test.describe("settings", ON_POSTGRES, () => {
  test("offers the browser's zone, finds a zone by typing, saves to the server and shows it again", async ({ browser }) => {
    await testDb().run("delete from mail_settings where user_id = ?", [await userId()]);
    const context = await browser.newContext({ timezoneId: "Asia/Tokyo" });
    const page = await context.newPage();
    try {
      await signIn(page, USER, "/worklist");
      await page.getByRole("link", { name: "Settings", exact: true }).click();
      await expect(page).toHaveURL(/\/settings$/);
      await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
      await expect(page.getByText("This server sends no e-mail")).toBeVisible();
      await expect(page.getByText(`Mail goes to ${USER.email}`)).toBeVisible();
      // A new user: the defaults, with the browser's zone offered (not yet saved).
      await expect(page.getByRole("radio", { name: "Daily" })).toBeChecked();
      await expect(page.getByLabel("Time of day")).toHaveValue("08:00");
      await expect(zoneField(page)).toHaveValue("Asia/Tokyo");
      await expect(page.getByText("Your browser's time zone")).toBeVisible();
      await expect(page.getByRole("checkbox", { name: /E-mail me when a file brings records/ })).not.toBeChecked();
      expect(await storedSettings()).toBeNull();
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Daily at 08:00, Europe/Berlin, found by typing part of its name; alerts on.
      await zoneField(page).fill("berl");
      const listbox = page.getByRole("listbox");
      await expect(listbox.getByRole("option")).toHaveText(["Europe/Berlin"]);
      await listbox.getByRole("option", { name: "Europe/Berlin" }).click();
      await expect(zoneField(page)).toHaveValue("Europe/Berlin");
      await page.getByRole("checkbox", { name: /E-mail me when a file brings records/ }).check();
      await expect(page.getByText("Unsaved changes")).toBeVisible();
      await page.getByRole("button", { name: "Save settings" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Saved." })).toHaveText("Saved. A digest every day at 08:00 (Europe/Berlin); new-dispute alerts on.");
      expect(await storedSettings()).toEqual({ digest: "daily", digest_at: "08:00", zone: "Europe/Berlin", alerts: 1 });
      // The browser's clock is 2026-02-06 09:00 UTC (10:00 in Berlin): today's 08:00 has passed.
      await expect(page.getByTestId("next-digest")).toHaveText("Your next digest, if there is anything to say: Saturday 2026-02-07 at 08:00 (Europe/Berlin).");
      await page.screenshot({ path: screenshotPath("settings.png") });

      // Kept on the server: after a reload the saved zone, not the browser's.
      await page.reload();
      await expect(zoneField(page)).toHaveValue("Europe/Berlin");
      await expect(page.getByText("Your browser's time zone")).toHaveCount(0);
      await expect(page.getByRole("checkbox", { name: /E-mail me when a file brings records/ })).toBeChecked();
    } finally {
      await context.close();
    }
  });

  test("works from the keyboard alone: weekly, a time, a zone by arrows and Enter", async ({ page }) => {
    await signIn(page, USER, "/settings");
    await page.getByRole("radio", { name: "Weekly, on Mondays" }).focus();
    await page.keyboard.press("Space");
    await expect(page.getByRole("radio", { name: "Weekly, on Mondays" })).toBeChecked();
    await page.getByLabel("Time of day").fill("07:30");
    // (Tab walks the time field's hours, minutes and AM/PM first.)
    await zoneField(page).focus();
    await page.keyboard.type("new y");
    await expect(page.getByRole("option", { name: "America/New York" })).toBeVisible();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(zoneField(page)).toHaveValue("America/New_York");
    // Escape with a half-typed text keeps the chosen zone.
    await page.getByRole("checkbox", { name: /E-mail me when a file brings records/ }).focus();
    await page.keyboard.press("Shift+Tab");
    await expect(zoneField(page)).toBeFocused();
    await page.keyboard.type("xyz");
    await expect(page.getByText("No time zone matches “xyz”.")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(zoneField(page)).toHaveValue("America/New_York");
    await page.getByRole("button", { name: "Save settings" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("status").filter({ hasText: "Saved." })).toHaveText("Saved. A digest every Monday at 07:30 (America/New_York); new-dispute alerts on.");
    expect(await storedSettings()).toEqual({ digest: "weekly", digest_at: "07:30", zone: "America/New_York", alerts: 1 });
    await expect(page.getByTestId("next-digest")).toHaveText("Your next digest, if there is anything to say: Monday 2026-02-09 at 07:30 (America/New_York).");
  });

  test("reads well on a phone", async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      await signIn(page, USER, "/settings");
      await expect(page.getByRole("button", { name: "Save settings" })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

test.describe("unsubscribe link", ON_POSTGRES, () => {
  test("opening it changes nothing; its button turns digests off without signing in, and Undo turns them back on", async ({ browser }) => {
    const before = await storedSettings();
    expect(before?.digest).toBe("weekly");
    // A browser with no session at all, as someone clicking the link in their mail.
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`/unsubscribe/${await tokenFor("digest")}`);
      await expect(page).toHaveURL(/\/unsubscribe\//);
      await expect(page.getByText(`Stop digest e-mails to ${USER.email}?`)).toBeVisible();
      expect(await storedSettings()).toEqual(before);
      expect(await seriousAxeViolations(page)).toEqual([]);

      await page.getByRole("button", { name: "Unsubscribe" }).click();
      await expect(page.getByRole("status")).toContainText(`Digest e-mails are turned off for ${USER.email}.`);
      expect(await storedSettings()).toEqual({ ...before, digest: "off" });
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshotPath("unsubscribe.png") });

      await page.getByRole("button", { name: "Undo" }).click();
      await expect(page.getByRole("status")).toHaveText(`Digest e-mails are on again for ${USER.email}.`);
      expect(await storedSettings()).toEqual(before);
      expect((await context.cookies()).length).toBe(0);
    } finally {
      await context.close();
    }
  });

  test("an altered link shows no page and changes nothing", async ({ page }) => {
    const before = await storedSettings();
    const token = await tokenFor("alert");
    const response = await page.goto(`/unsubscribe/${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`);
    expect(response?.status()).toBe(404);
    expect(await storedSettings()).toEqual(before);
  });
});
