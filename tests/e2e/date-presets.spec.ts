import { expect, type Page, test } from "@playwright/test";
import { gridReady, signIn, testDb } from "./helpers";

/**
 * The file-date presets (docs/architecture.md, "Date presets") in a browser whose clock and time
 * zone are fixed: late evening of 10 February in UTC is already 11 February in Auckland, so a
 * preset counted from the server's (UTC) date would show the wrong days.
 */
test.use({ timezoneId: "Pacific/Auckland" });

const NOW = new Date("2026-02-10T22:30:00Z"); // 2026-02-11 11:30 in Auckland

const EXPECTED: [string, string, string][] = [
  ["Today", "2026-02-11", "2026-02-11"],
  ["Yesterday", "2026-02-10", "2026-02-10"],
  ["Last 7 days", "2026-02-05", "2026-02-11"],
  ["Last 30 days", "2026-01-13", "2026-02-11"],
  ["This month", "2026-02-01", "2026-02-11"],
  ["Last month", "2026-01-01", "2026-01-31"],
  ["This quarter", "2026-01-01", "2026-02-11"],
  ["Last quarter", "2025-10-01", "2025-12-31"],
  ["Year to date", "2026-01-01", "2026-02-11"],
  ["Last 12 months", "2025-02-12", "2026-02-11"],
];

const fromField = (page: Page) => page.getByLabel("File date from");
const toField = (page: Page) => page.getByLabel("File date to");
const presets = (page: Page) => page.getByRole("group", { name: "File date presets" });
const params = (page: Page) => new URL(page.url()).searchParams;

async function count(from: string, to: string): Promise<number> {
  const row = await testDb().get<{ n: number }>("select count(*) as n from chargebacks where shop_code in ('SHOP_A', 'SHOP_B') and file_date between ? and ?", [from, to]);
  return Number(row.n);
}

test.describe("date presets", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, undefined, "/worklist");
    await page.clock.setFixedTime(NOW);
  });

  test("each preset shows the dates it stands for in the user's calendar, and the grid counts them", async ({ page }) => {
    await page.goto("/chargebacks");
    await gridReady(page);
    for (const [label, from, to] of EXPECTED) {
      await presets(page).getByRole("button", { name: label, exact: true }).click();
      await expect(presets(page).getByRole("button", { name: label, exact: true })).toHaveAttribute("aria-pressed", "true");
      await expect(fromField(page)).toHaveValue(from);
      await expect(toField(page)).toHaveValue(to);
      // The address keeps the preset's name, not its dates.
      await expect.poll(() => params(page).get("range")).toBe(label.toLowerCase().replace(/ /g, "-"));
      expect(params(page).get("from")).toBeNull();
      expect(params(page).get("to")).toBeNull();
      const n = await count(from, to);
      await expect(page.getByTestId("row-range")).toHaveText(new RegExp(` of ${n.toLocaleString("en-US")}$`));
      if (n === 0) await expect(page.getByText("No chargebacks match these filters:")).toBeVisible();
    }
  });

  test("typing a date turns the preset into a fixed range; pressing the preset again clears it", async ({ page }) => {
    await page.goto("/chargebacks?range=last-month");
    await expect(fromField(page)).toHaveValue("2026-01-01");
    await fromField(page).fill("2026-01-15");
    await expect.poll(() => [params(page).get("range"), params(page).get("from"), params(page).get("to")]).toEqual([null, "2026-01-15", "2026-01-31"]);
    await expect(presets(page).getByRole("button", { name: "Last month" })).toHaveAttribute("aria-pressed", "false");
    await gridReady(page);
    await expect(page.getByTestId("row-range")).toHaveText(new RegExp(` of ${(await count("2026-01-15", "2026-01-31")).toLocaleString("en-US")}$`));

    await presets(page).getByRole("button", { name: "Last 7 days" }).click();
    await expect.poll(() => params(page).get("range")).toBe("last-7-days");
    await presets(page).getByRole("button", { name: "Last 7 days" }).click();
    await expect.poll(() => params(page).toString()).toBe("");
    await expect(fromField(page)).toHaveValue("");
  });

  test("a preset in a link moves with the calendar", async ({ page }) => {
    await page.goto("/chargebacks?range=last-30-days");
    await expect(fromField(page)).toHaveValue("2026-01-13");
    await page.clock.setFixedTime(new Date("2026-02-15T22:30:00Z")); // 16 February in Auckland
    await page.reload();
    await expect(fromField(page)).toHaveValue("2026-01-18");
    await expect(toField(page)).toHaveValue("2026-02-16");
  });

  test("the overview counts its period from the preset, and the grids open on the newest records", async ({ page }) => {
    await page.goto("/overview?range=last-month");
    await expect(page.getByTestId("overview-period")).toContainText("File dates 2026-01-01 to 2026-01-31 (31 days)");
    await page.goto("/chargebacks");
    await gridReady(page);
    const newest = await testDb().get<{ d: string }>("select max(file_date) as d from chargebacks where shop_code in ('SHOP_A', 'SHOP_B')");
    await expect(page.locator("tbody tr[data-row-index]").first()).toContainText(newest.d);
    await page.goto("/pre-arbitration");
    await gridReady(page);
    const lastCase = await testDb().get<{ payment_order_nr: string }>("select payment_order_nr from pre_arbitrations where shop_code in ('SHOP_A', 'SHOP_B') order by id desc limit 1");
    await expect(page.locator("tbody tr[data-row-index]").first()).toContainText(lastCase.payment_order_nr);
  });
});
