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

  test("every table shows the numbers of POST /api/overview, for each period", async ({ page }) => {
    await signIn(page, USERS.merchant, `/overview?from=${RANGE.from}&to=${RANGE.to}`);
    const ask = (from: string, to: string) =>
      page.evaluate(
        async (body) => (await fetch("/api/overview", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).json(),
        { file_date_from: from, file_date_to: to },
      );
    const answer = await ask(RANGE.from, RANGE.to);
    const rows = async (id: string) => {
      const figure = page.getByTestId(`chart-${id}`);
      return figure.locator("table tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td, th")].map((c) => (c.textContent ?? "").trim())));
    };
    const nf = (n: number) => n.toLocaleString("en");
    type Group = { key: Record<string, string | number>; count: number; reversals: number };
    const top = (groups: Group[], dim: string) =>
      groups
        .map((g) => [String(g.key[dim]), g.count - g.reversals] as const)
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 10)
        .map(([v, n]) => [v, nf(n)]);
    await expect.poll(() => rows("top-shops")).toEqual(top(answer.by_shop.groups, "shop_code"));
    expect(await rows("top-merchants")).toEqual(top(answer.by_merchant.groups, "merchant_id"));
    expect(await rows("ecp")).toEqual(
      answer.excessive_chargebacks.map((m: { month: string; top_merchant: string | null; top_count: number; at_excessive: number; at_high_excessive: number }) => [
        m.month,
        m.top_merchant ?? "—",
        nf(m.top_count),
        nf(m.at_excessive),
        nf(m.at_high_excessive),
      ]),
    );
    const cb = answer.chargebacks.groups[0];
    await expect(page.getByTestId("headline-chargebacks")).toContainText(nf(cb.count - cb.reversals));
    await expect(page.getByTestId("headline-cases")).toContainText(nf(answer.pre_arbitrations.groups[0].count));

    // Another period.
    await page.goto(`/overview?from=2026-01-06&to=2026-02-28`);
    const feb = await ask("2026-01-06", "2026-02-28");
    await expect(page.getByTestId("overview-period")).toContainText("2026-01-06 to 2026-02-28 (54 days)");
    const fcb = feb.chargebacks.groups[0];
    await expect(page.getByTestId("headline-chargebacks")).toContainText(nf(fcb.count - fcb.reversals));
  });

  test("without dates shows the 90 days up to the browser's today, which the server cannot know", async ({ page }) => {
    // The browser's clock says 2026-02-06 (BROWSER_TODAY); the server's own date differs, so the
    // figures read with the page do not fit and the page asks the API for the browser's period.
    await signIn(page, USERS.merchant, "/overview");
    await expect(page.getByTestId("overview-period")).toContainText("2025-11-09 to 2026-02-06 (90 days)");
    const expected = await testDb().get<{ n: number }>(
      "select sum(case when rev_indicator = 'R' then 0 else 1 end) as n from chargebacks where shop_code in (?, ?) and file_date between ? and ?",
      [...USERS.merchant.access, "2025-11-09", "2026-02-06"],
    );
    await expect(page.getByTestId("headline-chargebacks")).toContainText(Number(expected.n).toLocaleString("en"));
  });

  test("a period with nothing before it to compare says so, and the filters stay to change it", async ({ page }) => {
    await signIn(page, USERS.merchant, "/overview?from=0001-01-01&to=0001-01-31");
    await expect(page.getByTestId("overview-period")).toContainText("no date before 0001-01-01 exists");
    // Filled again until the view takes it (it is in the address): a value filled into the
    // server's HTML before the page is live is lost when it hydrates (the field keeps showing it,
    // so filling the same value again changes nothing: it is cleared first), and a person sees
    // the change before typing on.
    await expect(async () => {
      await page.getByLabel("File date to").fill("");
      await page.getByLabel("File date to").fill("0002-01-31");
      await expect(page).toHaveURL(/[?&]to=0002-01-31(&|$)/, { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    await expect(page.getByTestId("overview-period")).toContainText("no date before 0001-01-01 exists");
    await page.getByLabel("File date from").fill("0002-01-01");
    await expect(page.getByTestId("overview-period")).toContainText("File dates 0002-01-01 to 0002-01-31 (31 days), compared with 0001-12-01 to 0001-12-31");
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
