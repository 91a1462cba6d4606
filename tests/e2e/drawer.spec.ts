import { expect, test } from "@playwright/test";
import { TIMELINE } from "./fixture";
import { chooseShops, chosenShops, gridReady, rangeText, screenshotPath, signIn, USERS } from "./helpers";

test.describe("detail drawer", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page);
  });

  test("opens with Enter on a focused row, closes with Escape, focus returns to the row", async ({ page }) => {
    await page.goto("/chargebacks?sort=FILE_DATE&dir=desc");
    await gridReady(page);
    const rows = page.locator("tbody tr[data-row-index]");
    await rows.first().focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect(rows.nth(2)).toBeFocused();
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("dialog");
    await expect(drawer).toBeVisible();
    await expect(page).toHaveURL(/open=/);
    for (const group of ["Transaction", "Chargeback", "Reversal", "Merchant", "Decision"]) {
      await expect(drawer.getByRole("heading", { name: group, exact: true })).toBeVisible();
    }
    await expect(drawer.getByTestId("deadline")).toBeVisible();
    await expect(drawer.locator('[data-field="function_code"]')).toHaveText(/^45[0134] — (First|Arbitration) Chargeback \((Full|Partial)\)$/);
    await expect(drawer.getByRole("button", { name: "Copy Acquirer reference number" })).toBeVisible();
    await page.screenshot({ path: screenshotPath("chargeback-drawer.png") });
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
    await expect(page).not.toHaveURL(/open=/);
    await expect(rows.nth(2)).toBeFocused();
  });

  test("opens on click; the previous / next buttons walk the page", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    const rows = page.locator("tbody tr[data-row-index]");
    const firstArn = await rows.first().getAttribute("data-row-index");
    expect(firstArn).toBe("0");
    await rows.first().click();
    const drawer = page.getByRole("dialog");
    const title1 = await drawer.getByRole("heading", { level: 2 }).textContent();
    await drawer.getByRole("button", { name: "Next record on this page" }).click();
    await expect(drawer.getByRole("heading", { level: 2 })).not.toHaveText(title1!);
    await drawer.getByRole("button", { name: "Close details" }).click();
    await expect(drawer).toBeHidden();
    await expect(rows.nth(1)).toBeFocused();
  });

  test("a copied link reproduces the view: filters, sort, page, page size and the open record", async ({ page, context }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    await chooseShops(page, ["SHOP_B"]);
    await page.getByLabel("File date from").fill("2026-01-06");
    await page.getByLabel("Rows per page").selectOption("10");
    await page.getByRole("columnheader", { name: "Merchant" }).getByRole("button").click();
    await gridReady(page);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect(rangeText(page)).toHaveText(/^Rows 11–20 of /);
    await gridReady(page);
    await page.locator("tbody tr[data-row-index]").nth(4).click();
    const title = await page.getByRole("dialog").getByRole("heading", { level: 2 }).textContent();
    const range = await rangeText(page).textContent();
    const link = page.url();

    const other = await context.newPage();
    await other.goto(link);
    await expect(other.getByRole("dialog").getByRole("heading", { level: 2 })).toHaveText(title!);
    await expect(other.locator('tbody tr[data-state="open"]')).toHaveAttribute("data-row-index", "4");
    // The drawer is modal (the page behind it is hidden from assistive technology): close it first.
    await other.keyboard.press("Escape");
    await expect(other.locator("tbody tr[data-row-index]").nth(4)).toBeFocused();
    await expect(rangeText(other)).toHaveText(range!);
    await expect(other.getByLabel("File date from")).toHaveValue("2026-01-06");
    expect(await chosenShops(other)).toEqual(["SHOP_B"]);
    await expect(other.getByRole("columnheader", { name: "Merchant" })).toHaveAttribute("aria-sort", "ascending");
    await expect(other.getByLabel("Rows per page")).toHaveValue("10");

    // The record key does not depend on the page: the same record opens from any view.
    const open = new URL(link).searchParams.get("open")!;
    await other.goto(`/chargebacks?open=${encodeURIComponent(open)}`);
    await expect(other.getByRole("dialog").getByRole("heading", { level: 2 })).toHaveText(title!);
    await other.close();
  });

  test("a link to a record outside the user's shops says so", async ({ page }) => {
    await page.goto("/chargebacks?open=2026-01-02~zzzz~70000000000000000000000");
    await expect(page.getByRole("dialog")).toContainText("This record was not found among your shops");
  });
});

test.describe("pre-arbitration", () => {
  test("grid and drawer of a case", async ({ page }) => {
    await signIn(page, undefined, "/pre-arbitration");
    await gridReady(page);
    // No FILE_DATE sort key for pre-arbitration: the header is not a sort button.
    await expect(page.getByRole("columnheader", { name: "File date" }).getByRole("button")).toHaveCount(0);
    await expect(page.getByLabel("Sort by").locator("option")).toHaveText(["Import order", "Shop", "Merchant id", "Acquirer reference number", "Order number"]);
    await page.screenshot({ path: screenshotPath("pre-arbitration-grid.png") });
    await page.locator("tbody tr[data-row-index]").first().focus();
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("dialog");
    await expect(drawer.getByRole("heading", { name: "Pre-arbitration case" })).toBeVisible();
    await expect(drawer.getByTestId("deadline")).toContainText(/Answer by \d{4}-\d{2}-\d{2}/);
    await page.screenshot({ path: screenshotPath("pre-arbitration-drawer.png") });
    await page.keyboard.press("Escape");
    await expect(page.locator("tbody tr[data-row-index]").first()).toBeFocused();
  });
});

test.describe("dispute timeline", () => {
  test("shows every record of the dispute in date order, marks the current item and its answer-by date, and opens each", async ({ page }) => {
    await signIn(page, USERS.merchant, `/chargebacks?arns=${TIMELINE.arn}&sort=FILE_DATE&dir=asc`);
    await gridReady(page);
    await expect(page.locator("tbody tr[data-row-index]")).toHaveCount(2);
    await page.locator("tbody tr[data-row-index]").first().click();
    const timeline = page.getByTestId("dispute-timeline");
    const entries = timeline.getByRole("listitem");
    await expect(entries).toHaveCount(3);
    await expect(entries.nth(0)).toContainText("First chargeback");
    await expect(entries.nth(0)).toContainText("450");
    await expect(entries.nth(0)).toContainText("this record");
    await expect(entries.nth(1)).toContainText("Arbitration chargeback");
    await expect(entries.nth(2)).toContainText("Pre-arbitration case");
    await expect(entries.nth(2)).toContainText("2026-02-08");
    // The case is the current item (docs/api.md, "Worklist"), with its answer-by date.
    await expect(entries.nth(2)).toHaveAttribute("data-current", "true");
    await expect(entries.nth(2)).toContainText(/current item/);
    await expect(entries.nth(2)).toContainText(/Answer by \d{4}-\d{2}-\d{2}/);
    await expect(timeline.locator("[data-current]")).toHaveCount(1);
    await page.getByRole("dialog").screenshot({ path: screenshotPath("dispute-timeline.png") });

    // Each entry opens its record: the case on the pre-arbitration page.
    await entries.nth(2).getByRole("link").click();
    await expect(page).toHaveURL(/\/pre-arbitration\?open=/);
    await expect(page.getByRole("dialog")).toContainText(`Pre-arbitration ${TIMELINE.arn}`);
    await expect(page.getByTestId("dispute-timeline").getByRole("listitem").nth(2)).toContainText("this record");
  });
});
