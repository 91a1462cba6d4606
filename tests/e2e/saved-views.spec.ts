import { type Browser, expect, type Page, test } from "@playwright/test";
import { BROWSER_TODAY, gridReady, screenshotPath, seriousAxeViolations, signIn, USERS } from "./helpers";

/**
 * Saved views (docs/architecture.md, "Saved views"): kept on the server per user, so they follow
 * the user to another browser and survive signing out; never seen by another user; renamed,
 * deleted and made a page's default from the header's "Saved views" menu.
 */

const menuButton = (page: Page) => page.getByRole("button", { name: "Saved views", exact: true });
const params = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

async function openMenu(page: Page) {
  if ((await menuButton(page).getAttribute("aria-expanded")) !== "true") await menuButton(page).click();
}

async function saveView(page: Page, name: string, makeDefault = false) {
  await page.getByRole("button", { name: "Save view", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Save view" });
  await dialog.getByLabel("Name", { exact: true }).fill(name);
  if (makeDefault) await dialog.getByRole("checkbox").check();
  await dialog.getByRole("button", { name: "Save", exact: true }).click();
  return dialog;
}

/** The view the tests set up: January by a preset, by order number, 25 rows, no Reversal column. */
async function setUpView(page: Page) {
  await page.goto("/chargebacks");
  await gridReady(page);
  await page.getByRole("group", { name: "File date presets" }).getByRole("button", { name: "Last month" }).click();
  await page.getByLabel("Sort by").selectOption("PAYMENT_ORDER_NR");
  await page.getByLabel("Order", { exact: true }).selectOption("asc");
  await page.getByLabel("Rows per page").selectOption("25");
  await page.getByRole("button", { name: /^Columns/ }).click();
  await page.getByRole("checkbox", { name: "Reversal", exact: true }).uncheck();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("columnheader", { name: "Reversal" })).toHaveCount(0);
  await expect.poll(() => params(page)).toEqual({ range: "last-month", sort: "PAYMENT_ORDER_NR", dir: "asc", size: "25" });
}

async function expectTheView(page: Page) {
  await expect.poll(() => params(page)).toEqual({ range: "last-month", sort: "PAYMENT_ORDER_NR", dir: "asc", size: "25" });
  await gridReady(page);
  await expect(page.getByRole("columnheader", { name: "Reversal" })).toHaveCount(0);
  await expect(page.getByRole("group", { name: "File date presets" }).getByRole("button", { name: "Last month" })).toHaveAttribute("aria-pressed", "true");
}

async function newSignedInPage(browser: Browser, user = USERS.views, next = "/overview") {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, user, next);
  return { page, close: () => context.close() };
}

test.describe.configure({ mode: "serial" });

test.describe("saved views", () => {
  test("save, find again after a reload, sign out and in, in another browser; another user sees nothing", async ({ page, browser }) => {
    await signIn(page, USERS.views, "/chargebacks");
    await setUpView(page);
    const dialog = await saveView(page, "January by order");
    await expect(dialog).toBeHidden();
    await expect(page.getByText("Saved as “January by order”.")).toBeVisible();

    await page.reload();
    await page.goto("/overview");
    await openMenu(page);
    const section = page.getByRole("region", { name: "Chargebacks" });
    await expect(section.getByRole("link", { name: "January by order" })).toBeVisible();
    await page.screenshot({ path: screenshotPath("saved-views.png") });
    await section.getByRole("link", { name: "January by order" }).click();
    await expect(page).toHaveURL(/\/chargebacks\?/);
    await expectTheView(page);

    // Signed out and in again: the view is still the user's.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
    await signIn(page, USERS.views, "/worklist");
    await openMenu(page);
    await expect(page.getByRole("link", { name: "January by order" })).toBeVisible();

    // Another browser (no local storage of this one): the columns come from the server too.
    const other = await newSignedInPage(browser);
    await openMenu(other.page);
    await other.page.getByRole("link", { name: "January by order" }).click();
    await expectTheView(other.page);
    await other.close();

    // Another user sees none of it.
    const stranger = await newSignedInPage(browser, USERS.single);
    await openMenu(stranger.page);
    await expect(stranger.page.getByText("No saved views yet.")).toBeVisible();
    await expect(stranger.page.getByRole("link", { name: "January by order" })).toHaveCount(0);
    await stranger.close();
  });

  test("names are unique per user, whatever the case; rename and delete from the menu", async ({ page }) => {
    await signIn(page, USERS.views, "/worklist");
    const dialog = await saveView(page, "JANUARY BY ORDER");
    await expect(dialog.getByText("You already have a view named “JANUARY BY ORDER”: choose another name.")).toBeVisible();
    await dialog.getByLabel("Name", { exact: true }).fill("x".repeat(201));
    await expect(dialog.getByText("At most 200 characters (201 typed).")).toBeVisible();
    await dialog.getByLabel("Name", { exact: true }).fill("Due this week");
    await dialog.getByRole("button", { name: "Save", exact: true }).click();
    await expect(dialog).toBeHidden();

    await openMenu(page);
    await expect(page.getByRole("region", { name: "Needs an answer" }).getByRole("link", { name: "Due this week" })).toBeVisible();
    await page.getByRole("button", { name: "Rename Due this week" }).click();
    await page.getByLabel("New name for Due this week").fill("january by order");
    await page.getByRole("button", { name: "Save name" }).click();
    await expect(page.getByText(/already have a view named/)).toBeVisible();
    await page.getByLabel("New name for Due this week").fill("Worklist, mine");
    await page.getByRole("button", { name: "Save name" }).click();
    await expect(page.getByRole("link", { name: "Worklist, mine" })).toBeVisible();

    await page.getByRole("button", { name: "Delete Worklist, mine" }).click();
    await page.getByRole("button", { name: "Yes, delete" }).click();
    await expect(page.getByRole("link", { name: "Worklist, mine" })).toHaveCount(0);
    await page.reload();
    await openMenu(page);
    await expect(page.getByRole("link", { name: "Worklist, mine" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "January by order" })).toBeVisible();
  });

  test("a page's default view opens when its address has no state; clearing the filters leaves them cleared", async ({ page }) => {
    await signIn(page, USERS.views, "/worklist");
    await openMenu(page);
    await page.getByRole("button", { name: "Open Chargebacks on January by order by default" }).click();
    await expect(page.getByRole("button", { name: "Stop opening Chargebacks on January by order" })).toBeVisible();
    await page.keyboard.press("Escape");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Chargebacks" }).click();
    await expectTheView(page);
    await page.getByRole("button", { name: "Clear all filters" }).first().click();
    await expect.poll(() => params(page).range).toBeUndefined();
    await gridReady(page);
    expect(params(page).range).toBeUndefined();

    // A link with state of its own opens as it is.
    await page.goto("/chargebacks?sort=ID&dir=asc");
    await gridReady(page);
    expect(params(page)).toEqual({ sort: "ID", dir: "asc" });

    await openMenu(page);
    await page.getByRole("button", { name: "Stop opening Chargebacks on January by order" }).click();
    await expect(page.getByRole("button", { name: "Open Chargebacks on January by order by default" })).toBeVisible();
    await page.goto("/chargebacks");
    await gridReady(page);
    expect(params(page)).toEqual({});
  });

  test("a view stored by an older version opens without the filter it no longer knows, and says so", async ({ page }) => {
    await signIn(page, USERS.views, "/worklist");
    // As an older version might have stored it: a filter that no longer exists, and a bad value.
    const created = await page.request.post("/api/views", {
      data: { name: "From last year's version", page: "/chargebacks", query: "?range=last-month&acquirer_region=EU&size=7&sort=ID", columns: null },
    });
    expect(created.status()).toBe(201);
    await page.reload();
    await openMenu(page);
    await page.getByRole("link", { name: "From last year's version" }).click();
    await expect.poll(() => params(page)).toEqual({ range: "last-month", sort: "ID" });
    await gridReady(page);
    const notice = page.getByTestId("view-notice");
    await expect(notice).toContainText("“acquirer_region”");
    await expect(notice).toContainText("“size”");
    await expect(notice).toContainText("left out");
  });

  test("the dialog and the menu pass axe at desktop and phone widths", async ({ page }) => {
    await signIn(page, USERS.views, "/overview");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.clock.setFixedTime(BROWSER_TODAY);
      await page.getByRole("button", { name: "Save view", exact: true }).click();
      await expect(page.getByRole("dialog", { name: "Save view" })).toBeVisible();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");
      await openMenu(page);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");
    }
  });
});
