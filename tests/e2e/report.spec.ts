import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { FIRST_COLUMNS } from "@/components/report/first-screen";
import { screenshotPath, signIn, USERS } from "./helpers";

/**
 * The pivot report (/report): every cell and total against the summary API's own answer, the links
 * from a cell to the grid (whose total is the cell's), the CSV export against the table on screen,
 * the layout in the address, the empty and refused states, accessibility at desktop and phone widths.
 */

type Kind = "chargeback" | "pre_arbitration";
type Amount = { currency: string; chb_amount?: string; reversal_amount?: string; amount?: string };
type Group = { key: Record<string, string | number>; count: number; reversals?: number; amounts: Amount[] };
type Summary = { groups: Group[]; totalElements: number };

/** POST /api/<kind>/summary with the page's own session; amounts kept as the text the server wrote. */
async function summary(page: Page, kind: Kind, body: Record<string, unknown>): Promise<Summary> {
  const response = await page.request.post(`/api/${kind}/summary`, { data: body, headers: { Origin: new URL(page.url()).origin } });
  expect(response.status()).toBe(200);
  const text = await response.text();
  return JSON.parse(text.replace(/"(chb_amount|reversal_amount|amount)":(-?\d+\.\d{2})/g, '"$1":"$2"')) as Summary;
}

const nf = (n: number | bigint) => n.toLocaleString("en");
const minor = (text: string) => (text.startsWith("-") ? -1n : 1n) * BigInt(text.replace(/^-/, "").replace(".", ""));
function money(m: bigint): string {
  const negative = m < 0n;
  const abs = negative ? -m : m;
  return `${negative ? "-" : ""}${nf(abs / 100n)}.${String(abs % 100n).padStart(2, "0")}`;
}
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const monthLabel = (m: string) => `${MONTHS[Number(m.slice(5)) - 1]} ${m.slice(0, 4)}`;

/** One of the layout's selects, by its label. */
const layout = (page: Page, name: "Records" | "Rows" | "Columns" | "Measure") => page.getByRole("combobox", { name, exact: true });

/** The answer on screen is the one for the address (not the previous one standing in). */
async function reportReady(page: Page) {
  await expect(page.getByTestId("report")).toHaveAttribute("data-settled", "true");
  await expect(page.getByTestId("report-table")).toBeVisible();
}

/** The table's text: header rows, body rows and the totals row, each cell trimmed. */
function tableText(page: Page) {
  return page.getByTestId("report-table").evaluate((table) => {
    const cells = (tr: Element) => [...tr.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim());
    const t = table as HTMLTableElement;
    return { head: [...t.tHead!.rows].map(cells), body: [...t.tBodies[0].rows].map(cells), foot: [...t.tFoot!.rows].map(cells) };
  });
}

/** The header as one line per column, as the CSV writes it: "Jan 2026 (EUR)" under a two-row header. */
function flatHeader(head: string[][], spans: number[]): string[] {
  if (head.length === 1) return head[0];
  const [groups, currencies] = head;
  const out = [groups[0]];
  let at = 0;
  groups.slice(1).forEach((group, i) => {
    for (let k = 0; k < spans[i]; k++) out.push(`${group} (${currencies[at++]})`);
  });
  return out;
}

async function gridTotal(page: Page): Promise<number> {
  const range = page.getByTestId("row-range");
  await expect(range).toHaveText(/of [\d,]+$/);
  await expect(page.getByTestId("skeleton-row")).toHaveCount(0);
  return Number((await range.innerText()).replace(/.* of /, "").replace(/,/g, ""));
}

test.describe("Report", () => {
  test("a shop by file date table built from the selects shows every number of the summary API, with exact totals", async ({ page }) => {
    await signIn(page, USERS.merchant, "/overview");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Report", exact: true }).click();
    await expect(page).toHaveURL(/\/report$/);
    // The defaults: chargebacks by month, no columns, the count.
    await reportReady(page);
    await expect(layout(page, "Records")).toHaveValue("chargeback");
    await expect(layout(page, "Rows")).toHaveValue("month");
    await expect(layout(page, "Columns")).toHaveValue("");
    await expect(layout(page, "Measure")).toHaveValue("count");

    await layout(page, "Rows").selectOption({ label: "Shop" });
    await layout(page, "Columns").selectOption({ label: "File date" });
    await expect(page).toHaveURL(/rows=shop_code/);
    await expect(page).toHaveURL(/cols=file_date/);
    await reportReady(page);

    const answer = await summary(page, "chargeback", { group_by: ["shop_code", "file_date"] });
    const shops = [...new Set(answer.groups.map((g) => String(g.key.shop_code)))].sort();
    const dates = [...new Set(answer.groups.map((g) => String(g.key.file_date)))].sort();
    expect(shops).toEqual(USERS.merchant.access);
    const count = (shop: string, date: string) => answer.groups.find((g) => g.key.shop_code === shop && g.key.file_date === date)?.count ?? 0;
    const rowTotal = (shop: string) => dates.reduce((n, d) => n + count(shop, d), 0);
    const colTotal = (date: string) => shops.reduce((n, s) => n + count(s, date), 0);
    expect(shops.reduce((n, s) => n + rowTotal(s), 0)).toBe(answer.totalElements);

    const table = await tableText(page);
    expect(table.head).toEqual([["Shop", ...dates, "Total"]]);
    expect(table.body).toEqual(shops.map((s) => [s, ...dates.map((d) => nf(count(s, d))), nf(rowTotal(s))]));
    expect(table.foot).toEqual([["Total", ...dates.map((d) => nf(colTotal(d))), nf(answer.totalElements)]]);
    // The grand total is the API's total for the filters alone.
    expect((await summary(page, "chargeback", { group_by: [] })).totalElements).toBe(answer.totalElements);
    await expect(page.getByTestId("report-table")).toHaveAccessibleName(/Chargebacks: count by shop \(rows\) and file date \(columns\)/);

    // A cell opens the grid filtered to exactly its records: that shop on that day.
    const [shop, date] = [shops[0], dates[1]];
    await page.getByRole("link", { name: `${nf(count(shop, date))} chargebacks of Shop ${shop}, File date ${date}: open them in the Chargebacks grid` }).click();
    await expect(page).toHaveURL(new RegExp(`/chargebacks\\?from=${date}&to=${date}&shops=${shop}$`));
    expect(await gridTotal(page)).toBe(count(shop, date));
    await page.goBack();
    await reportReady(page);
    // A row total: the shop over the whole period; a column total: the day in every shop.
    await page.getByRole("link", { name: `${nf(rowTotal(shops[1]))} chargebacks of Shop ${shops[1]}: open them in the Chargebacks grid` }).click();
    await expect(page).toHaveURL(new RegExp(`/chargebacks\\?shops=${shops[1]}$`));
    expect(await gridTotal(page)).toBe(rowTotal(shops[1]));
    await page.goBack();
    await reportReady(page);
    await page.getByRole("link", { name: `${nf(colTotal(dates[0]))} chargebacks of File date ${dates[0]}: open them in the Chargebacks grid` }).click();
    expect(await gridTotal(page)).toBe(colTotal(dates[0]));
    await page.goBack();
    await reportReady(page);
    await page.getByRole("link", { name: `${nf(answer.totalElements)} chargebacks of this report: open them in the Chargebacks grid` }).click();
    await expect(page).toHaveURL(/\/chargebacks$/);
    expect(await gridTotal(page)).toBe(answer.totalElements);
  });

  test("a month cell within a date filter opens the intersection of the two ranges; merchant and shop cells set those filters", async ({ page }) => {
    const [from, to] = ["2026-01-05", "2026-01-20"];
    await signIn(page, USERS.merchant, `/report?from=${from}&to=${to}`);
    await reportReady(page);
    const months = await summary(page, "chargeback", { file_date_from: from, file_date_to: to, group_by: ["month"] });
    expect(months.groups.map((g) => g.key.month)).toEqual(["2026-01"]);
    const jan = months.groups[0].count;
    expect(await tableText(page)).toEqual({ head: [["Month", "Count"]], body: [["Jan 2026", nf(jan)]], foot: [["Total", nf(jan)]] });
    await page.getByRole("link", { name: `${nf(jan)} chargebacks of Month Jan 2026: open them in the Chargebacks grid` }).click();
    await expect(page).toHaveURL(new RegExp(`/chargebacks\\?from=${from}&to=${to}$`));
    expect(await gridTotal(page)).toBe(jan);

    // A date preset is a range counted from the browser's today (2026-02-06): the link holds the dates.
    await page.goto("/report?range=last-30-days");
    await reportReady(page);
    const janCell = page.getByRole("link", { name: /chargebacks of Month Jan 2026: open them in the Chargebacks grid$/ });
    const janCount = Number((await janCell.innerText()).replace(/,/g, ""));
    await janCell.click();
    await expect(page).toHaveURL(/\/chargebacks\?from=2026-01-08&to=2026-01-31$/);
    expect(await gridTotal(page)).toBe(janCount);

    await page.goto(`/report?rows=merchant_id&cols=shop_code&to=${to}`);
    await reportReady(page);
    const pairs = await summary(page, "chargeback", { file_date_to: to, group_by: ["merchant_id", "shop_code"] });
    const cell = pairs.groups[0];
    const merchant = String(cell.key.merchant_id);
    const shop = String(cell.key.shop_code);
    await page.getByRole("link", { name: `${nf(cell.count)} chargebacks of Merchant id ${merchant}, Shop ${shop}: open them in the Chargebacks grid` }).click();
    await expect(page).toHaveURL(new RegExp(`/chargebacks\\?to=${to}&shops=${shop}&merchant=${merchant}$`));
    expect(await gridTotal(page)).toBe(cell.count);
  });

  test("cells of dimensions the grid cannot filter are plain numbers; totals over filterable ones still link", async ({ page }) => {
    await signIn(page, USERS.merchant, "/report?rows=reason_code&cols=shop_code");
    await reportReady(page);
    const answer = await summary(page, "chargeback", { group_by: ["reason_code", "shop_code"] });
    const shops = [...new Set(answer.groups.map((g) => String(g.key.shop_code)))];
    const table = page.getByTestId("report-table");
    // No link in the body (reason code x shop); the totals row links each shop and the grand total.
    await expect(table.locator("tbody a")).toHaveCount(0);
    await expect(table.locator("tfoot a")).toHaveCount(shops.length + 1);
    // Reason codes read with their titles.
    await expect(table.locator("tbody th").first()).toHaveText(/^\d+ — /);
    const text = await tableText(page);
    const codes = [...new Set(answer.groups.map((g) => Number(g.key.reason_code)))].sort((a, b) => a - b);
    expect(text.body.map((r) => Number(r[0].split(" ")[0]))).toEqual(codes);
    for (const [i, code] of codes.entries()) {
      const of = (shop: string) => answer.groups.find((g) => g.key.reason_code === code && g.key.shop_code === shop)?.count ?? 0;
      expect(text.body[i].slice(1)).toEqual([...shops.map((s) => nf(of(s))), nf(shops.reduce((n, s) => n + of(s), 0))]);
    }
  });

  test("amounts per currency are the API's to the cent, totals added exactly and never across currencies", async ({ page }) => {
    await signIn(page, USERS.merchant, "/report?kind=pre_arbitration&rows=case_stage&cols=shop_code&measure=amount");
    await reportReady(page);
    await expect(layout(page, "Records")).toHaveValue("pre_arbitration");
    const answer = await summary(page, "pre_arbitration", { group_by: ["case_stage", "shop_code"] });
    const stages = [...new Set(answer.groups.map((g) => String(g.key.case_stage)))].sort();
    const shops = [...new Set(answer.groups.map((g) => String(g.key.shop_code)))].sort();
    const currencies = [...new Set(answer.groups.flatMap((g) => g.amounts.map((a) => a.currency)))].sort();
    const sum = (stage: string | null, shop: string | null, ccy: string) => {
      let found = false;
      let total = 0n;
      for (const g of answer.groups) {
        if ((stage !== null && g.key.case_stage !== stage) || (shop !== null && g.key.shop_code !== shop)) continue;
        const a = g.amounts.find((x) => x.currency === ccy);
        if (a) {
          found = true;
          total += minor(a.amount!);
        }
      }
      return found ? money(total) : "—";
    };
    const line = (stage: string | null) => [...shops.flatMap((s) => currencies.map((c) => sum(stage, s, c))), ...currencies.map((c) => sum(stage, null, c))];
    const table = await tableText(page);
    expect(table.head).toEqual([["Case stage", ...shops, "Total"], [...shops, "Total"].flatMap(() => currencies)]);
    expect(table.body).toEqual(stages.map((stage) => [stage, ...line(stage)]));
    expect(table.foot).toEqual([["Total", ...line(null)]]);

    // Chargebacks: reversal amounts per scheme, exact.
    await page.goto("/report?rows=card_type&measure=reversal_amount");
    await reportReady(page);
    const reversals = await summary(page, "chargeback", { group_by: ["card_type"] });
    const ccys = [...new Set(reversals.groups.flatMap((g) => g.amounts.map((a) => a.currency)))].sort();
    const of = (scheme: string | null, ccy: string) =>
      money(reversals.groups.filter((g) => scheme === null || g.key.card_type === scheme).reduce((n, g) => n + minor(g.amounts.find((a) => a.currency === ccy)?.reversal_amount ?? "0.00"), 0n));
    const schemes = reversals.groups.map((g) => String(g.key.card_type));
    const text = await tableText(page);
    expect(text.head).toEqual([["Scheme", "Reversal amount"], ccys]);
    expect(text.body).toEqual(schemes.map((s) => [{ MC: "Mastercard", VISA: "Visa" }[s] ?? s, ...ccys.map((c) => of(s, c))]));
    expect(text.foot).toEqual([["Total", ...ccys.map((c) => of(null, c))]]);
  });

  test("Export CSV downloads the table as shown, totals included", async ({ page }) => {
    for (const address of ["/report?rows=shop_code&cols=file_date", "/report?rows=shop_code&cols=month&measure=amount", "/report?rows=reason_code&cols=card_type&measure=reversals"]) {
      await page.context().clearCookies();
      await signIn(page, USERS.merchant, address);
      await reportReady(page);
      const table = await tableText(page);
      const spans = await page.getByTestId("report-table").locator("thead tr").first().locator("th").evaluateAll((ths) => ths.slice(1).map((th) => (th as HTMLTableCellElement).colSpan));
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV", exact: true }).click()]);
      expect(download.suggestedFilename()).toMatch(/^chargebacks-report-[a-z_]+-by-[a-z_]+-[a-z_]+-\d{4}-\d{2}-\d{2}\.csv$/);
      const text = fs.readFileSync((await download.path())!, "utf8");
      expect(text.startsWith("\uFEFF")).toBe(true);
      const csv = parse(text.slice(1)) as string[][];
      const number = (cell: string) => (cell === "—" ? "" : /^-?[\d,]+(\.\d{2})?$/.test(cell) ? cell.replace(/,/g, "") : cell);
      expect(csv[0]).toEqual(flatHeader(table.head, spans));
      expect(csv.slice(1)).toEqual([...table.body, ...table.foot].map((row) => [row[0], ...row.slice(1).map(number)]));
    }
  });

  test("a large table's first screenful is in the page's HTML, and the browser draws the rest at once", async ({ page, browser }) => {
    // Amounts of 15 file dates and the total in three currencies: more columns than a screen shows.
    const address = "/report?rows=shop_code&cols=file_date&measure=amount";
    await signIn(page, USERS.merchant, address);
    await reportReady(page);
    const whole = await tableText(page);
    const columns = whole.head[1].length;
    expect(columns).toBeGreaterThan(FIRST_COLUMNS);
    expect(whole.body.every((row) => row.length === columns + 1)).toBe(true);

    // The same address without scripts: the page as the server sent it.
    const context = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
    try {
      const html = await context.newPage();
      await html.goto(new URL(address, page.url()).href);
      await expect(html.getByTestId("report")).toHaveAttribute("data-settled", "false");
      const first = await tableText(html);
      const corner = (rows: string[][]) => rows.map((row) => row.slice(0, FIRST_COLUMNS + 1));
      expect(first.head[1]).toEqual(whole.head[1].slice(0, FIRST_COLUMNS));
      expect(first.body).toEqual(corner(whole.body));
      expect(first.foot).toEqual(corner(whole.foot));
      // Its links are the live table's own.
      const links = (p: Page) => p.getByTestId("report-table").locator("a").evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.getAttribute("aria-label")]));
      const [live, sent] = [await links(page), await links(html)];
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every(([href, name]) => live.some(([h, n]) => h === href && n === name))).toBe(true);
    } finally {
      await context.close();
    }
  });

  test("the layout lives in the address and is validated: a dimension the kind lacks is dropped, columns never repeat the rows", async ({ page }) => {
    await signIn(page, USERS.merchant, "/report?rows=card_type&cols=card_type");
    await reportReady(page);
    await expect(layout(page, "Columns")).toHaveValue("");
    expect((await tableText(page)).head).toEqual([["Scheme", "Count"]]);

    await page.goto("/report?kind=pre_arbitration&rows=card_type&cols=reason_code&measure=reversals");
    await reportReady(page);
    await expect(layout(page, "Rows")).toHaveValue("month");
    await expect(layout(page, "Columns")).toHaveValue("");
    await expect(layout(page, "Measure")).toHaveValue("count");
    const cases = await summary(page, "pre_arbitration", { group_by: ["month"] });
    expect((await tableText(page)).body).toEqual(cases.groups.map((g) => [monthLabel(String(g.key.month)), nf(g.count)]));

    // Switching the kind keeps what the other kind has and drops what it lacks, filters included.
    await page.goto("/report?rows=function_code&cols=shop_code&measure=reversals&parent=PMID1");
    await reportReady(page);
    await layout(page, "Records").selectOption({ label: "Pre-arbitration cases" });
    await expect(page).toHaveURL(/kind=pre_arbitration/);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ kind: "pre_arbitration", cols: "shop_code" });
    await reportReady(page);
    // Choosing the columns' dimension as rows swaps the two.
    await layout(page, "Rows").selectOption({ label: "Shop" });
    await expect(page).toHaveURL(/rows=shop_code/);
    await expect(page).toHaveURL(/cols=month/);
  });

  test("no records, and a selection the API refuses, are said plainly on the page", async ({ page }) => {
    await signIn(page, USERS.merchant, "/report?merchant=NOBODY");
    await expect(page.getByTestId("empty-state")).toContainText("No records match these filters");
    await expect(page.getByTestId("report-table")).toHaveCount(0);

    // More than 10,000 groups (the fixture has too few records to make them): the API's answer.
    await page.goto("/report");
    await reportReady(page);
    await page.route("**/api/chargeback/summary", (route) =>
      route.fulfill({
        status: 400,
        contentType: "application/problem+json",
        headers: { "X-Request-Id": "req-test" },
        body: JSON.stringify({
          type: "/docs#error-400",
          title: "Invalid request",
          status: 400,
          detail: "the selection gives more than 10000 groups; narrow the filters or group by fewer dimensions",
          errors: [{ field: "group_by", message: "gives more than 10000 groups for this selection" }],
          request_id: "req-test",
        }),
      }),
    );
    await layout(page, "Columns").selectOption({ label: "Merchant id" });
    const error = page.getByTestId("error-state");
    await expect(error).toContainText("Too many groups for one table");
    await expect(error).toContainText("more than 10000 groups");
    await expect(error).toContainText("req-test");
    await expect(error.getByRole("button", { name: "Retry" })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Report", level: 1 })).toBeVisible();
  });

  test("a chart of the measure per row, with its caption and numbers; screenshot", async ({ page }) => {
    await signIn(page, USERS.merchant, "/report?rows=file_date&cols=card_type");
    await reportReady(page);
    const figure = page.getByTestId("chart-report");
    await expect(figure.locator("svg").first()).toBeVisible();
    await expect(figure.locator("figcaption")).toContainText("the most for");
    const answer = await summary(page, "chargeback", { group_by: ["file_date", "card_type"] });
    const dates = [...new Set(answer.groups.map((g) => String(g.key.file_date)))];
    const numbers = await figure.locator("table tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim())));
    const of = (date: string, scheme: string) => answer.groups.find((g) => g.key.file_date === date && g.key.card_type === scheme)?.count ?? 0;
    expect(numbers).toEqual(dates.map((d) => [d, nf(of(d, "MC")), nf(of(d, "VISA")), nf(of(d, "MC") + of(d, "VISA"))]));
    await page.screenshot({ path: screenshotPath("report.png"), fullPage: true });
  });

  for (const phone of [false, true]) {
    test(`accessibility (axe) ${phone ? "on a phone" : "at desktop width"}, and the table scrolls rather than the page`, async ({ page }) => {
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      await signIn(page, USERS.merchant, "/report?rows=shop_code&cols=file_date&measure=amount");
      await reportReady(page);
      const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
      expect(results.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(" | ")}`)).toEqual([]);
      const scroll = page.getByTestId("report-scroll");
      // The page's own content never scrolls sideways (the header above it is the layout's).
      const sizes = await scroll.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, main: document.querySelector("main")!.scrollWidth, viewport: window.innerWidth }));
      expect(sizes.main).toBeLessThanOrEqual(sizes.viewport);
      if (phone) expect(sizes.scroll).toBeGreaterThan(sizes.client);
      if (phone) await page.screenshot({ path: screenshotPath("report-phone.png"), fullPage: false });
    });
  }
});
