import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { addDays, daysBetween } from "../../lib/domain/deadlines";
import { DUE_GROUPS, dueGroupOf } from "../../lib/url-state/worklist";
import { BROWSER_TODAY, gridReady, screenshotPath, signIn, USERS } from "./helpers";

const TODAY = BROWSER_TODAY.toISOString().slice(0, 10);

/** The answer-by dates and kinds of the rows on screen. */
async function rowsOnScreen(page: import("@playwright/test").Page) {
  const rows = page.locator("tbody tr[data-row-index]");
  const count = await rows.count();
  const out: { answerBy: string; due: string; kind: string }[] = [];
  for (let i = 0; i < count; i++) {
    const cells = rows.nth(i).locator("td");
    out.push({ answerBy: (await cells.nth(0).innerText()).trim(), due: (await cells.nth(1).innerText()).trim(), kind: (await cells.nth(2).innerText()).trim() });
  }
  return out;
}

test.describe("Needs an answer (worklist)", () => {
  test("is the landing page after sign-in, nearest answer-by date first, grouped by days left in the user's calendar", async ({ page }) => {
    await page.clock.setFixedTime(BROWSER_TODAY);
    await page.goto("/login");
    await page.getByLabel("E-mail address").fill(USERS.merchant.email);
    await page.getByLabel("Password").fill(USERS.merchant.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/worklist$/);
    await gridReady(page);

    const rows = await rowsOnScreen(page);
    expect(rows.length).toBeGreaterThan(5);
    for (let i = 1; i < rows.length; i++) expect(rows[i].answerBy >= rows[i - 1].answerBy, `${rows[i - 1].answerBy} then ${rows[i].answerBy}`).toBe(true);
    for (const row of rows) expect(row.due).toContain(dueGroupOf(daysBetween(TODAY, row.answerBy)!).label);

    // The tiles count each group with the same filters; together they are the whole list.
    const counts: Record<string, number> = {};
    for (const group of DUE_GROUPS) counts[group.key] = Number((await page.getByTestId(`due-${group.key}`).locator("span").nth(1).innerText()).replace(/,/g, ""));
    const total = Number((await page.getByTestId("row-range").innerText()).match(/of ([\d,]+)/)![1].replace(/,/g, ""));
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(total);
    // The navigation's count is what is due this week: overdue and due within 7 days.
    await expect(page.getByTestId("due-this-week")).toContainText(String(counts.overdue + counts.soon + counts.week));
    await page.screenshot({ path: screenshotPath("worklist.png") });

    // A group filters the list and goes into the URL.
    await page.getByTestId("due-overdue").click();
    await expect(page).toHaveURL(/due=overdue/);
    await gridReady(page);
    for (const row of await rowsOnScreen(page)) {
      expect(row.due).toContain("Overdue");
      expect(row.answerBy < TODAY).toBe(true);
    }
    await expect(page.getByTestId("row-range")).toContainText(`of ${counts.overdue.toLocaleString("en")}`);
  });

  test("filters by kind and answer-by range in the URL, opens the same drawer, and exports the list", async ({ page }) => {
    await signIn(page, USERS.merchant, `/worklist?kinds=pre_arbitration&from=${TODAY}&to=${addDays(TODAY, 60)}`);
    await gridReady(page);
    const rows = await rowsOnScreen(page);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.kind).toBe("Pre-arbitration");
      expect(row.answerBy >= TODAY && row.answerBy <= addDays(TODAY, 60)!).toBe(true);
    }
    await page.locator("tbody tr[data-row-index]").first().click();
    const drawer = page.getByRole("dialog");
    await expect(drawer).toContainText("Pre-arbitration");
    await expect(drawer.getByTestId("deadline")).toContainText(`Answer by ${rows[0].answerBy}`);
    await expect(drawer.getByTestId("dispute-timeline")).toBeVisible();
    await expect(page).toHaveURL(/openKind=pre_arbitration/);
    await page.keyboard.press("Escape");

    const total = Number((await page.getByTestId("row-range").innerText()).match(/of ([\d,]+)/)![1].replace(/,/g, ""));
    const downloadPromise = page.waitForEvent("download");
    await page.getByRole("link", { name: /^Export CSV/ }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toMatch(/^worklist-\d{8}-\d{6}\.csv$/);
    const csv = parse(fs.readFileSync((await download.path())!, "utf8"), { bom: true, columns: true }) as Record<string, string>[];
    expect(csv.length).toBe(total);
    expect(csv.map((r) => r.answer_by)).toEqual([...csv.map((r) => r.answer_by)].sort());
    for (const r of csv) {
      expect(r.kind).toBe("pre_arbitration");
      expect(USERS.merchant.access).toContain(r.shop_code);
    }
  });
});
