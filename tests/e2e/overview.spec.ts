import { expect, test } from "@playwright/test";
import { screenshotPath, signIn, testDb, USERS } from "./helpers";

const RANGE = { from: "2026-01-01", to: "2026-01-31" };

test.describe("Overview", () => {
  test("headline figures and every chart agree with the database, each with a table of its numbers", async ({ page }) => {
    await signIn(page, USERS.merchant, `/overview?from=${RANGE.from}&to=${RANGE.to}`);
    const expected = await testDb().get<{ n: number; reversals: number }>(
      "select sum(case when rev_indicator = 'R' then 0 else 1 end) as n, sum(case when rev_indicator = 'R' then 1 else 0 end) as reversals from chargebacks where shop_code in (?, ?) and file_date between ? and ?",
      [...USERS.merchant.access, RANGE.from, RANGE.to],
    );
    await expect(page.getByTestId("headline-chargebacks")).toContainText(Number(expected.n).toLocaleString("en"));
    await expect(page.getByTestId("headline-reversals")).toContainText(Number(expected.reversals).toLocaleString("en"));
    await expect(page.getByTestId("overview-period")).toContainText(`${RANGE.from} to ${RANGE.to} (31 days)`);

    const monthly = page.getByTestId("chart-monthly");
    await expect(monthly.locator("svg").first()).toBeVisible();
    await monthly.getByRole("button", { name: "Show the numbers" }).click();
    const total = await monthly.locator("tbody tr").first().locator("td").last().innerText();
    expect(Number(total.replace(/,/g, ""))).toBe(Number(expected.n));
    for (const id of ["reasons", "stages", "documents", "top-shops", "top-merchants", "ecp"]) {
      const figure = page.getByTestId(`chart-${id}`);
      await expect(figure.locator("figcaption")).not.toBeEmpty();
      // The table is there for screen readers even while it is folded away on screen.
      expect(await figure.locator("table tbody tr").count()).toBeGreaterThan(0);
    }
    await expect(page.getByTestId("chart-ecp")).toContainText("Counts only");
    await page.screenshot({ path: screenshotPath("overview.png"), fullPage: true });

    // A shop of the top list opens the chargeback grid filtered to it and to the period.
    const shops = page.getByTestId("chart-top-shops");
    await shops.getByRole("button", { name: "Show the numbers" }).click();
    const first = shops.locator("tbody a").first();
    const shop = await first.innerText();
    await first.click();
    await expect(page).toHaveURL(new RegExp(`/chargebacks\\?from=${RANGE.from}&to=${RANGE.to}&shops=${shop}`));
  });

  test("is readable on a phone and when printed", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, USERS.merchant, `/overview?from=${RANGE.from}&to=${RANGE.to}`);
    await expect(page.getByTestId("headline-chargebacks")).toBeVisible();
    await expect(page.getByTestId("chart-ecp").locator("figcaption")).not.toBeEmpty();
    // Nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.emulateMedia({ media: "print" });
    // Printed, every chart's table is on the page, not folded away.
    const table = page.getByTestId("chart-monthly").locator("table");
    await expect(table).toBeVisible();
    expect(await table.evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(100);
  });
});
