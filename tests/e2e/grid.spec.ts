import { expect, test } from "@playwright/test";
import { chooseShops, gridReady, rangeText, screenshotPath, signIn, testDb } from "./helpers";

const IN_SCOPE = "shop_code in ('SHOP_A','SHOP_B')";

async function count(where: string, ...params: unknown[]): Promise<number> {
  return (await testDb().get<{ n: number }>(`select count(*) as n from chargebacks where ${IN_SCOPE} and ${where}`, params)).n;
}

const fmt = (n: number) => n.toLocaleString("en");

test.describe("chargeback grid", () => {
  test.beforeEach(async ({ page }) => {
    // Every test opens its own address.
    await signIn(page, undefined, null);
  });

  test("shows the review columns and the true total of the user's shops", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    const total = await count("1=1");
    await expect(rangeText(page)).toHaveText(`Rows 1–50 of ${fmt(total)}`);
    for (const name of ["File date", "Card", "Scheme", "Reason", "Function", "Amount", "Processed", "Merchant", "Order number", "Reversal", "Docs", "Decision", "Answer by"]) {
      await expect(page.getByRole("columnheader", { name, exact: true })).toBeVisible();
    }
    // An unknown reason code still shows, as the number with "unknown code".
    await expect(page.getByRole("cell", { name: /^\d+ — unknown code$/ }).first()).toBeVisible();
    await page.screenshot({ path: screenshotPath("chargebacks-grid.png") });
  });

  test("filters by file date range; the filter goes into the URL and back to page 1", async ({ page }) => {
    await page.goto("/chargebacks?page=3");
    await gridReady(page);
    await page.getByLabel("File date from").fill("2026-01-10");
    await expect(page).toHaveURL(/from=2026-01-10/);
    await expect(page).not.toHaveURL(/page=3/);
    await page.getByLabel("File date to").fill("2026-01-14");
    await expect(page).toHaveURL(/to=2026-01-14/);
    await gridReady(page);
    const n = await count("file_date between ? and ?", "2026-01-10", "2026-01-14");
    await expect(rangeText(page)).toHaveText(`Rows 1–50 of ${fmt(n)}`);
    const dates = await page.locator("tbody tr[data-row-index] td:first-child").allTextContents();
    expect(dates.length).toBeGreaterThan(0);
    for (const d of dates) expect(d >= "2026-01-10" && d <= "2026-01-14").toBe(true);
  });

  test("filters by shop from the access list", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    await chooseShops(page, ["SHOP_A"]);
    await expect(page).toHaveURL(/shops=SHOP_A/);
    await gridReady(page);
    await expect(rangeText(page)).toHaveText(`Rows 1–50 of ${fmt(await count("shop_code = 'SHOP_A'"))}`);
    // Only the user's shops are offered.
    await page.getByRole("combobox", { name: "Shops", exact: true }).fill("SHOP_");
    const offered = page.getByRole("listbox").getByRole("option", { name: /^SHOP_/ });
    await expect(offered).toHaveCount(2);
    expect((await offered.allTextContents()).map((t) => t.replace(/^✓/, "")).sort()).toEqual(["SHOP_A", "SHOP_B"]);
    await page.getByRole("combobox", { name: "Shops", exact: true }).fill("SHOP_C");
    await expect(page.getByText("No shop matches “SHOP_C”.")).toBeVisible();
  });

  test("a pasted list of order numbers (newlines, commas, spaces) filters exactly those", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    const orders = (await testDb().all<{ payment_order_nr: string }>(`select payment_order_nr from chargebacks where ${IN_SCOPE} order by id limit 3`)).map((r) => r.payment_order_nr);
    await page.getByLabel("Order numbers").fill(`${orders[0]},\n${orders[1]}  ${orders[2]}`);
    await expect(page).toHaveURL(new RegExp(`orders=${orders.join("(,|%2C)")}`));
    await expect(rangeText(page)).toHaveText("Rows 1–3 of 3");
  });

  test("sorts on the server by a clickable header with aria-sort", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    const header = page.getByRole("columnheader", { name: "File date" });
    await header.getByRole("button").click();
    await expect(header).toHaveAttribute("aria-sort", "ascending");
    await header.getByRole("button").click();
    await expect(header).toHaveAttribute("aria-sort", "descending");
    // File date, newest first, is the grid's default order: the address no longer names it.
    await expect.poll(() => [...new URL(page.url()).searchParams.keys()]).toEqual([]);
    await gridReady(page);
    const latest = (await testDb().get<{ d: string }>(`select max(file_date) as d from chargebacks where ${IN_SCOPE}`)).d;
    await expect(page.locator("tbody tr[data-row-index]").first().locator("td").first()).toHaveText(latest);
    // Sort keys without a column (import order, shop) are in the "Sort by" menu.
    await page.getByLabel("Sort by").selectOption("SHOP_CODE");
    await expect(page).toHaveURL(/sort=SHOP_CODE/);
    await expect(header).toHaveAttribute("aria-sort", "none");
  });

  test("page size, first / previous / next / last, Back and Forward", async ({ page }) => {
    const total = await count("1=1");
    await page.goto("/chargebacks");
    await gridReady(page);
    await page.getByLabel("Rows per page").selectOption("25");
    await expect(rangeText(page)).toHaveText(`Rows 1–25 of ${fmt(total)}`);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect(rangeText(page)).toHaveText(`Rows 26–50 of ${fmt(total)}`);
    await expect(page).toHaveURL(/page=2/);
    await page.getByRole("button", { name: "Last page" }).click();
    const lastPage = Math.ceil(total / 25);
    await expect(rangeText(page)).toHaveText(`Rows ${fmt((lastPage - 1) * 25 + 1)}–${fmt(total)} of ${fmt(total)}`);
    await page.getByRole("button", { name: "Previous page" }).click();
    await expect(rangeText(page)).toHaveText(`Rows ${fmt((lastPage - 2) * 25 + 1)}–${fmt((lastPage - 1) * 25)} of ${fmt(total)}`);
    await page.goBack();
    await expect(rangeText(page)).toHaveText(`Rows ${fmt((lastPage - 1) * 25 + 1)}–${fmt(total)} of ${fmt(total)}`);
    await page.goForward();
    await expect(rangeText(page)).toHaveText(`Rows ${fmt((lastPage - 2) * 25 + 1)}–${fmt((lastPage - 1) * 25)} of ${fmt(total)}`);
    await page.getByRole("button", { name: "First page" }).click();
    await expect(rangeText(page)).toHaveText(`Rows 1–25 of ${fmt(total)}`);
  });

  test("a page of 1000 rows renders only what is in view and scrolls to the last row", async ({ page }) => {
    await page.goto("/chargebacks?size=1000");
    await gridReady(page);
    await expect(rangeText(page)).toHaveText(/^Rows 1–1,000 of /);
    const rendered = await page.locator("tbody tr[data-row-index]").count();
    expect(rendered).toBeLessThan(100);
    // Keyboard: End jumps to the last row of the page, which the virtualizer brings into view.
    await page.locator("tbody tr[data-row-index]").first().focus();
    await page.keyboard.press("End");
    await expect(page.locator('tr[data-row-index="999"]')).toBeFocused();
    await expect(page.locator('tr[data-row-index="999"]')).toBeInViewport();
  });

  test("invalid URL values are ignored, not coerced", async ({ page }) => {
    await page.goto("/chargebacks?page=abc&size=5&sort=NAME&dir=up&from=2026-02-30");
    await gridReady(page);
    await expect(rangeText(page)).toHaveText(/^Rows 1–50 of /);
    await expect(page.getByLabel("File date from")).toHaveValue("");
    // The grid's default order: file date, newest first.
    await expect(page.getByLabel("Sort by")).toHaveValue("FILE_DATE");
    await expect(page.getByLabel("Order", { exact: true })).toHaveValue("desc");
  });

  test("the chosen columns are kept across visits", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    await page.getByRole("button", { name: /^Columns/ }).click();
    await page.getByRole("checkbox", { name: "Card", exact: true }).uncheck();
    await page.getByRole("checkbox", { name: "Issuer comments" }).check();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("columnheader", { name: "Card", exact: true })).toHaveCount(0);
    await page.reload();
    await gridReady(page);
    await expect(page.getByRole("columnheader", { name: "Card", exact: true })).toHaveCount(0);
    await expect(page.getByRole("columnheader", { name: "Issuer comments" })).toBeVisible();
    await page.getByRole("button", { name: /^Columns/ }).click();
    await page.getByRole("button", { name: "Reset to default columns" }).click();
    await expect(page.getByRole("columnheader", { name: "Card", exact: true })).toBeVisible();
  });

  test("an empty result names the filters that matched nothing", async ({ page }) => {
    await page.goto("/chargebacks?merchant=NO_SUCH_MID&from=2026-01-04");
    const empty = page.getByTestId("empty-state");
    await expect(empty).toContainText("No chargebacks match these filters");
    await expect(empty).toContainText("Merchant id: NO_SUCH_MID");
    await expect(empty).toContainText("File date from: 2026-01-04");
    await empty.getByRole("button", { name: "Clear all filters" }).click();
    await gridReady(page);
  });

  test("a server failure shows the error state with a working Retry", async ({ page }) => {
    let fail = true;
    await page.route("**/api/chargeback", async (route) => {
      if (fail) {
        await route.fulfill({
          status: 500,
          contentType: "application/problem+json",
          headers: { "X-Request-Id": "req-e2e-0123456789" },
          body: JSON.stringify({ type: "/docs#error-500", title: "Internal server error", status: 500, detail: "an unexpected error occurred", request_id: "req-e2e-0123456789" }),
        });
      } else {
        await route.continue();
      }
    });
    await page.goto("/chargebacks");
    const error = page.getByTestId("error-state");
    await expect(error).toContainText("The server could not load the records");
    // The answer's request id, for the user to quote to support.
    await expect(error.getByTestId("error-reference")).toHaveText("req-e2e-0123456789");
    await expect(page.locator("tbody tr[data-row-index]")).toHaveCount(0);
    fail = false;
    await error.getByRole("button", { name: "Retry" }).click();
    await gridReady(page);
  });
});
