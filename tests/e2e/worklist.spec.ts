import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { addDays, daysBetween } from "../../lib/domain/calendar";
import { DUE_GROUPS, itemGroupLabel, RECENTLY_EXPIRED } from "../../lib/url-state/worklist";
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
    // Only what can still be answered: due (by days left) or overdue, never expired.
    for (const row of rows) {
      const daysLeft = daysBetween(TODAY, row.answerBy)!;
      expect(row.due).toContain(itemGroupLabel(daysLeft < 0 ? "overdue" : "due", daysLeft).label);
      expect(row.due).not.toContain("xpired");
    }

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
      expect(row.due).toMatch(/\d+ days? overdue/);
      expect(row.answerBy < TODAY).toBe(true);
    }
    await expect(page.getByTestId("row-range")).toContainText(`of ${counts.overdue.toLocaleString("en")}`);
  });

  test("counts apart what expired in the last 30 days, lists it on request, and never calls it overdue", async ({ page }) => {
    await signIn(page, USERS.merchant, "/worklist");
    await gridReady(page);
    const tile = page.getByTestId("expired-recently");
    await expect(tile).toContainText(RECENTLY_EXPIRED.label);
    await expect(tile).not.toContainText("…");
    const recent = Number((await tile.locator("span").nth(1).innerText()).replace(/,/g, ""));
    expect(recent).toBeGreaterThan(0);

    // The link lists exactly those: expired, with an expiry date within the last 30 days.
    await tile.click();
    await expect(page).toHaveURL(/due=expired/);
    await gridReady(page);
    await expect(page.getByTestId("row-range")).toContainText(`of ${recent.toLocaleString("en")}`);
    const rows = await rowsOnScreen(page);
    for (const row of rows) {
      expect(row.due).toContain("Expired");
      const expiredOn = row.due.match(/expired on (\d{4}-\d{2}-\d{2})/)![1];
      expect(expiredOn >= addDays(TODAY, -30)! && expiredOn < TODAY, row.due).toBe(true);
      expect(row.due).not.toContain("overdue");
    }

    // The drawer of an expired dispute says when it expired, never how many days overdue.
    await page.locator("tbody tr[data-row-index]").first().click();
    const deadline = page.getByRole("dialog").getByTestId("deadline");
    await expect(deadline).toContainText(`Answer by ${rows[0].answerBy} — expired on`);
    await expect(deadline).not.toContainText("overdue");
    await page.keyboard.press("Escape");

    // The export follows the view: the same disputes, each with its status and expiry date.
    const downloadPromise = page.waitForEvent("download");
    await page.getByRole("link", { name: /^Export CSV/ }).click();
    const csv = parse(fs.readFileSync((await (await downloadPromise).path())!, "utf8"), { bom: true, columns: true }) as Record<string, string>[];
    expect(csv.length).toBe(recent);
    for (const r of csv) {
      expect(r.status).toBe("expired");
      expect(r.expires_on >= addDays(TODAY, -30)! && r.expires_on < TODAY).toBe(true);
    }

    // A status filter in the address lists every expired dispute, older ones too.
    await page.goto("/worklist?statuses=expired");
    await gridReady(page);
    await expect(page.getByRole("group", { name: "Status" }).getByRole("checkbox", { name: "Expired" })).toBeChecked();
    await expect(page.getByRole("group", { name: "Status" }).getByRole("checkbox", { name: "Due", exact: true })).not.toBeChecked();
    const all = Number((await page.getByTestId("row-range").innerText()).match(/of ([\d,]+)/)![1].replace(/,/g, ""));
    expect(all).toBeGreaterThanOrEqual(recent);
    for (const row of await rowsOnScreen(page)) expect(row.due).toContain("Expired");
    // Nothing expired counts in the tiles of what can still be answered, nor in the badge.
    const tiles = await Promise.all(DUE_GROUPS.map(async (g) => Number((await page.getByTestId(`due-${g.key}`).locator("span").nth(1).innerText()).replace(/,/g, ""))));
    await expect(page.getByTestId("due-this-week")).toContainText(String(tiles[0] + tiles[1] + tiles[2]));
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
