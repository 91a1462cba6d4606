/**
 * npm run bench:browser -- --url http://127.0.0.1:3000 --email a@b.c --password-stdin [--shop CODE] [--runs 20] [--to YYYY-MM-DD] [--only report|picker]
 *
 * The dashboard in Debian's Chromium against a running `npm start` (a loaded database): the
 * JavaScript /chargebacks loads (gzipped bytes on the wire), how long a file-date filter takes
 * from typing until its total and rows are on screen (p95 over --runs), a 1000-row page until
 * rendered, a drawer until open (these three also measured inside the page, without the driver's
 * round trips), the worklist page until its rows are on screen, and the
 * overview (90 days ending --to, default today, a day earlier each run) until every chart is drawn
 * and until its figures were first painted, and the overview opened from the navigation bar.
 * The report (measureReport, its own printed line): a year of file dates ending --to by two
 * summary dimensions, a new pair each run, from navigation start and from a change of its Rows
 * select until the table is drawn, measured in the page.
 * The shop picker (bench/studies/browser-picker.ts, its own printed line): each typed character
 * until the listbox answers the field's new text, measured in the page, for the user's shops.
 * The password is read from standard input; traffic goes only to --url, which must be loopback.
 */
import fs from "node:fs";
import zlib from "node:zlib";
import { chromium, type Page } from "@playwright/test";
import { measurePicker } from "./browser-picker";
import { dimensionNames } from "@/lib/schemas/summary";

interface Options {
  url: string;
  email: string;
  password: string;
  shop?: string;
  runs: number;
  to: string;
  /** one measurement alone (after sign-in): "report" */
  only?: "report" | "picker";
}

/** The overview's charts (their figures' test ids). */
const OVERVIEW_CHARTS = ["monthly", "reasons", "stages", "documents", "top-shops", "top-merchants", "ecp"];

function options(argv: string[]): Options {
  const value = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const url = value("url") ?? "http://127.0.0.1:3000";
  if (!/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/.test(url)) throw new Error("--url must be a loopback address such as http://127.0.0.1:3000");
  const email = value("email");
  if (!email) throw new Error("--email is required");
  if (!argv.includes("--password-stdin")) throw new Error("--password-stdin is required (the password is read from standard input)");
  const password = fs.readFileSync(0, "utf8").split(/\r?\n/)[0];
  const runs = Number(value("runs") ?? 20);
  if (!Number.isSafeInteger(runs) || runs < 1 || runs > 500) throw new Error("--runs must be a whole number from 1 to 500");
  const to = value("to") ?? new Date().toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(to)) throw new Error("--to must be a date YYYY-MM-DD");
  const only = value("only");
  if (only !== undefined && only !== "report" && only !== "picker") throw new Error("--only takes: report, picker");
  return { url, email, password, shop: value("shop"), runs, to, only };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** Rows on screen, no skeleton left, and the range line says what the grid shows. */
async function gridSettled(page: Page) {
  await page.locator("tbody tr[data-row-index]").first().waitFor({ state: "visible" });
  await page.getByTestId("skeleton-row").first().waitFor({ state: "detached" }).catch(() => {});
}

async function main() {
  const opts = options(process.argv.slice(2));
  const executablePath = fs.existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined;
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    // The floor: the smallest page of the app (/login, signed out) until React has hydrated its form.
    const anonymous = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const floorMs: number[] = [];
    for (let i = 0; i <= opts.runs; i++) {
      const t0 = performance.now();
      await anonymous.goto(`${opts.url}/login`, { waitUntil: "commit" });
      await anonymous.waitForFunction(() => {
        const form = document.querySelector("form");
        return form !== null && Object.keys(form).some((key) => key.startsWith("__reactFiber"));
      }, undefined, { polling: "raf" });
      if (i > 0) floorMs.push(performance.now() - t0);
    }
    await anonymous.close();

    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${opts.url}/login?next=%2Fchargebacks`);
    await page.getByLabel("E-mail address").fill(opts.email);
    await page.getByLabel("Password").fill(opts.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((u) => !u.pathname.startsWith("/login"));
    if (opts.only === "report") {
      console.log(`report ${JSON.stringify(await measureReport(page, opts))}`);
      return;
    }
    if (opts.only === "picker") {
      console.log(`picker ${JSON.stringify(pickerLine(await measurePicker(page, opts.url, opts.runs)))}`);
      return;
    }

    // JavaScript of a cold load of /chargebacks, gzipped as it would travel.
    const scripts = new Map<string, number>();
    const fresh = await browser.newContext({ storageState: await page.context().storageState() });
    const cold = await fresh.newPage();
    cold.on("response", async (res) => {
      if (res.request().resourceType() !== "script") return;
      try {
        scripts.set(res.url(), zlib.gzipSync(await res.body(), { level: 9 }).length);
      } catch {
        // a script that failed to load is not counted
      }
    });
    await cold.goto(`${opts.url}/chargebacks`, { waitUntil: "networkidle" });
    await gridSettled(cold);
    await fresh.close();
    const jsGzipKb = [...scripts.values()].reduce((a, b) => a + b, 0) / 1024;

    // A filter: the file-date field, from typing to the new total and rows on screen.
    await page.goto(`${opts.url}/chargebacks`);
    await gridSettled(page);
    const filterMs: number[] = [];
    const shops = opts.shop ? [opts.shop] : [];
    const range = page.getByTestId("row-range");
    // In the page: from the date field's input event until the new range line is in the document
    // with no skeleton left and the next frame was drawn. (No named functions in the page's code:
    // tsx would wrap them in a helper the page does not have.)
    await page.evaluate(() => {
      const w = window as unknown as { __inputAt?: number; __rangeBefore?: string | null; __filterMs: number[] };
      w.__filterMs = [];
      document.addEventListener(
        "input",
        (e) => {
          const field = e.target as HTMLInputElement;
          if (![...(field.labels ?? [])].some((label) => label.textContent?.includes("File date from")) && field.getAttribute("aria-label") !== "File date from") return;
          w.__inputAt = e.timeStamp;
          w.__rangeBefore = document.querySelector('[data-testid="row-range"]')?.textContent ?? null;
        },
        true,
      );
      new MutationObserver(() => {
        const at = w.__inputAt;
        const now = document.querySelector('[data-testid="row-range"]')?.textContent ?? null;
        if (at === undefined || !now || now === w.__rangeBefore || document.querySelector('[data-testid="skeleton-row"]')) return;
        w.__inputAt = undefined;
        requestAnimationFrame(() => w.__filterMs.push(performance.now() - at));
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    for (let i = 0; i < opts.runs; i++) {
      // Each run a different first date, so the total on screen changes when the rows arrive.
      const from = `2025-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + Math.floor(i / 12)).padStart(2, "0")}`;
      const before = await range.textContent();
      const t0 = performance.now();
      await page.getByLabel("File date from").fill(from);
      await page.waitForFunction(
        (old) => {
          const now = document.querySelector('[data-testid="row-range"]')?.textContent;
          return now && now !== old && !document.querySelector('[data-testid="skeleton-row"]');
        },
        before,
        { polling: "raf" },
      );
      filterMs.push(performance.now() - t0);
    }
    const filterInPageMs = await page.evaluate(() => (window as unknown as { __filterMs: number[] }).__filterMs);
    if (filterInPageMs.length !== opts.runs) throw new Error(`the page saw ${filterInPageMs.length} filter changes of ${opts.runs}`);

    // 1000 rows a page, from navigation to the last row rendered in the virtual table: by the
    // driver's clock, and in the page itself (navigation start until the rows are in the document
    // with no skeleton left and the next frame was drawn), like the overview below.
    await page.addInitScript(() => {
      const w = window as unknown as { __gridAt?: number };
      if (location.pathname !== "/chargebacks" || !location.search.includes("size=1000")) return;
      const observer = new MutationObserver(() => {
        if (w.__gridAt !== undefined) return;
        if (!document.querySelector("tbody tr[data-row-index]") || document.querySelector('[data-testid="skeleton-row"]')) return;
        observer.disconnect();
        requestAnimationFrame(() => (w.__gridAt = performance.now()));
      });
      observer.observe(document, { childList: true, subtree: true });
    });
    const pageMs: number[] = [];
    const pageInPageMs: number[] = [];
    for (let i = 0; i < Math.min(opts.runs, 10); i++) {
      const t0 = performance.now();
      await page.goto(`${opts.url}/chargebacks?size=1000&page=${i + 1}${shops.map((s) => `&shops=${s}`).join("")}`);
      await gridSettled(page);
      pageMs.push(performance.now() - t0);
      pageInPageMs.push(await page.waitForFunction(() => (window as unknown as { __gridAt?: number }).__gridAt).then((h) => h.jsonValue() as Promise<number>));
    }

    // The drawer: a click on a row until the dialog is visible, by the driver's clock; and in the
    // page, from the click event until the dialog is in the document and the next frame was drawn.
    await page.goto(`${opts.url}/chargebacks`);
    await gridSettled(page);
    await page.evaluate(() => {
      const w = window as unknown as { __clickAt?: number; __drawerMs: number[] };
      w.__drawerMs = [];
      document.addEventListener("click", (e) => (w.__clickAt = e.timeStamp), true);
      new MutationObserver(() => {
        const at = w.__clickAt;
        if (at === undefined || !document.querySelector('[role="dialog"]')) return;
        w.__clickAt = undefined;
        requestAnimationFrame(() => w.__drawerMs.push(performance.now() - at));
      }).observe(document.body, { childList: true, subtree: true });
    });
    const drawerMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const t0 = performance.now();
      await page.locator("tbody tr[data-row-index]").nth(i % 10).click();
      await page.getByRole("dialog").waitFor({ state: "visible" });
      drawerMs.push(performance.now() - t0);
      await page.keyboard.press("Escape");
      await page.getByRole("dialog").waitFor({ state: "detached" });
    }
    const drawerInPageMs = await page.evaluate(() => (window as unknown as { __drawerMs: number[] }).__drawerMs);
    if (drawerInPageMs.length !== opts.runs) throw new Error(`the page saw ${drawerInPageMs.length} drawer openings of ${opts.runs}`);

    // The worklist: navigation until its rows are on screen (a later page each run).
    const worklistMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const t0 = performance.now();
      await page.goto(`${opts.url}/worklist?page=${i + 1}`);
      await gridSettled(page);
      worklistMs.push(performance.now() - t0);
    }

    // The overview, opened by its address: navigation until the headline and every chart are
    // drawn; and, measured by the browser, until its figures (headline, every chart's caption and
    // table, which arrive with the page) were first painted.
    const chartsDrawn = async () => {
      await page.getByTestId("headline-chargebacks").waitFor();
      for (const id of OVERVIEW_CHARTS) await page.getByTestId(`chart-${id}`).locator("svg").first().waitFor();
    };
    // In the page itself: the time from the navigation's start until the headline and every
    // chart's picture are in the document and the next frame was drawn (no polling delay).
    await page.addInitScript((ids: string[]) => {
      const w = window as unknown as { __overviewDrawnAt?: number };
      if (location.pathname !== "/overview") return;
      // No named functions in here: tsx would wrap them in a helper the page does not have.
      const observer = new MutationObserver(() => {
        if (w.__overviewDrawnAt !== undefined) return;
        if (!document.querySelector('[data-testid="headline-chargebacks"]') || !ids.every((id) => document.querySelector(`[data-testid="chart-${id}"] svg`))) return;
        observer.disconnect();
        requestAnimationFrame(() => (w.__overviewDrawnAt = performance.now()));
      });
      observer.observe(document, { childList: true, subtree: true });
    }, OVERVIEW_CHARTS);
    const overviewMs: number[] = [];
    const drawnInPageMs: number[] = [];
    const figuresMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const to = new Date(Date.parse(`${opts.to}T00:00:00Z`) - i * 86_400_000).toISOString().slice(0, 10);
      const from = new Date(Date.parse(`${to}T00:00:00Z`) - 89 * 86_400_000).toISOString().slice(0, 10);
      const t0 = performance.now();
      await page.goto(`${opts.url}/overview?from=${from}&to=${to}`, { waitUntil: "commit" });
      await chartsDrawn();
      overviewMs.push(performance.now() - t0);
      drawnInPageMs.push(await page.waitForFunction(() => (window as unknown as { __overviewDrawnAt?: number }).__overviewDrawnAt).then((h) => h.jsonValue() as Promise<number>));
      figuresMs.push(await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN));
    }
    // The overview opened from the navigation (the app's code already loaded), the default period.
    const overviewNavMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      await page.goto(`${opts.url}/worklist`);
      await gridSettled(page);
      const t0 = performance.now();
      await page.getByRole("link", { name: "Overview", exact: true }).click();
      await chartsDrawn();
      overviewNavMs.push(performance.now() - t0);
    }

    const result = {
      floorLoginHydratedP95Ms: Math.round(percentile(floorMs, 95)),
      floorLoginHydratedP50Ms: Math.round(percentile(floorMs, 50)),
      jsGzipKb: Math.round(jsGzipKb),
      scripts: scripts.size,
      filterP95Ms: Math.round(percentile(filterMs, 95)),
      filterP50Ms: Math.round(percentile(filterMs, 50)),
      filterInPageP95Ms: Math.round(percentile(filterInPageMs, 95)),
      filterInPageP50Ms: Math.round(percentile(filterInPageMs, 50)),
      page1000P95Ms: Math.round(percentile(pageMs, 95)),
      page1000P50Ms: Math.round(percentile(pageMs, 50)),
      page1000InPageP95Ms: Math.round(percentile(pageInPageMs, 95)),
      page1000InPageP50Ms: Math.round(percentile(pageInPageMs, 50)),
      drawerP95Ms: Math.round(percentile(drawerMs, 95)),
      drawerP50Ms: Math.round(percentile(drawerMs, 50)),
      drawerInPageP95Ms: Math.round(percentile(drawerInPageMs, 95)),
      drawerInPageP50Ms: Math.round(percentile(drawerInPageMs, 50)),
      worklistP95Ms: Math.round(percentile(worklistMs, 95)),
      worklistP50Ms: Math.round(percentile(worklistMs, 50)),
      overviewP95Ms: Math.round(percentile(overviewMs, 95)),
      overviewP50Ms: Math.round(percentile(overviewMs, 50)),
      overviewDrawnInPageP95Ms: Math.round(percentile(drawnInPageMs, 95)),
      overviewDrawnInPageP50Ms: Math.round(percentile(drawnInPageMs, 50)),
      overviewFiguresPaintedP95Ms: Math.round(percentile(figuresMs, 95)),
      overviewFiguresPaintedP50Ms: Math.round(percentile(figuresMs, 50)),
      overviewFromNavigationP95Ms: Math.round(percentile(overviewNavMs, 95)),
      overviewFromNavigationP50Ms: Math.round(percentile(overviewNavMs, 50)),
    };
    console.log(JSON.stringify(result, null, 2));
    // Each further page is its own function and prints its own line.
    console.log(`report ${JSON.stringify(await measureReport(page, opts))}`);
    console.log(`picker ${JSON.stringify(pickerLine(await measurePicker(page, opts.url, opts.runs)))}`);
  } finally {
    await browser.close();
  }
}

// ---- The report (/report) ------------------------------------------------------------------

/**
 * The pivot report over a year of file dates ending --to (a day earlier each run, so that no answer
 * is remembered), by a pair of the chargebacks' summary dimensions (a new pair each run):
 * - load: a fresh load of /report?rows=..&cols=.. (a shared link), from navigation start until the
 *   table of that layout is in the document and the next frame was drawn;
 * - select: then a change of the Rows select to another dimension, from the change event until
 *   the new table is drawn;
 * - api: the summary request of that change, as the browser's resource timing saw it.
 * Each is marked in the page (performance.mark / measure "report-load", "report-select"). A layout
 * the API refuses (more than 10,000 groups), or one with too many cells to draw, is counted apart,
 * not timed.
 */
/** The picker's keystrokes as one printed line: how many shops, how many keystrokes, p50 and p95. */
function pickerLine(result: Awaited<ReturnType<typeof measurePicker>>) {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { shops: result.shops, keystrokes: result.keystrokes, p50_ms: round(percentile(result.ms, 50)), p95_ms: round(percentile(result.ms, 95)), max_ms: round(Math.max(...result.ms)) };
}

async function measureReport(page: Page, opts: Options) {
  const dims = dimensionNames("chargeback");
  const pairs = dims.flatMap((rows) => dims.filter((cols) => cols !== rows).map((cols) => [rows, cols] as const));
  // In every /report document: the load's end, and each Rows change until its table is drawn.
  // (No named functions in the page's code: tsx would wrap them in a helper the page does not have.)
  await page.addInitScript(() => {
    if (location.pathname !== "/report") return;
    const w = window as unknown as { __reportLoad?: { ms: number; ok: boolean }; __changeAt?: number; __expect?: string; __reportSelect?: { ms: number; ok: boolean } };
    const TABLE = '[data-testid="report"][data-settled="true"] [data-testid="report-table"]';
    document.addEventListener(
      "change",
      (e) => {
        const select = e.target as HTMLSelectElement;
        if (![...(select.labels ?? [])].some((label) => label.textContent?.trim() === "Rows")) return;
        w.__changeAt = e.timeStamp;
        w.__expect = select.value;
        w.__reportSelect = undefined;
        performance.mark("report-select-start");
      },
      true,
    );
    new MutationObserver(() => {
      const table = document.querySelector(TABLE);
      // Refused by the API (more than 10,000 groups), or too many cells to draw: not timed.
      const refused = document.querySelector('[data-testid="error-state"], [data-testid="report"] [data-testid="empty-state"]') !== null;
      if (w.__reportLoad === undefined && (table || refused)) {
        w.__reportLoad = { ms: -1, ok: !refused };
        requestAnimationFrame(() => {
          performance.mark("report-load-end");
          w.__reportLoad = { ms: performance.measure("report-load", { start: 0, end: "report-load-end" }).duration, ok: !refused };
        });
      }
      const rows = table?.getAttribute("data-layout")?.split("/")[1];
      if (w.__changeAt === undefined || (rows !== w.__expect && !refused)) return;
      w.__changeAt = undefined;
      requestAnimationFrame(() => {
        performance.mark("report-select-end");
        w.__reportSelect = { ms: performance.measure("report-select", "report-select-start", "report-select-end").duration, ok: !refused };
      });
    }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-settled", "data-layout"] });
  });

  const load: number[] = [];
  const select: number[] = [];
  const api: number[] = [];
  // The same, for layouts of the issue's dimensions only: "documents" is our extension (the
  // overview's share with issuer documents), paired with nothing in record_sums.
  const core = { load: [] as number[], select: [] as number[], api: [] as number[] };
  const isCore = (...names: string[]) => !names.includes("documents");
  let refused = 0;
  for (let i = 0; i < opts.runs; i++) {
    const to = new Date(Date.parse(`${opts.to}T00:00:00Z`) - i * 86_400_000).toISOString().slice(0, 10);
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - 364 * 86_400_000).toISOString().slice(0, 10);
    const [rows, cols] = pairs[i % pairs.length];
    const shops = opts.shop ? `&shops=${opts.shop}` : "";
    await page.goto(`${opts.url}/report?from=${from}&to=${to}&rows=${rows}&cols=${cols}${shops}`, { waitUntil: "commit" });
    const loaded = await page
      .waitForFunction(() => {
        const r = (window as unknown as { __reportLoad?: { ms: number; ok: boolean } }).__reportLoad;
        return r && r.ms >= 0 ? r : undefined;
      }, undefined, { polling: "raf", timeout: 30_000 })
      .then((h) => h.jsonValue() as Promise<{ ms: number; ok: boolean }>);
    if (!loaded.ok) {
      refused++;
      continue;
    }
    load.push(loaded.ms);
    if (isCore(rows, cols)) core.load.push(loaded.ms);
    // Rows to another dimension, neither the columns' nor the current rows'.
    const others = dims.filter((d) => d !== rows && d !== cols);
    const next = others[i % others.length];
    await page.getByRole("combobox", { name: "Rows", exact: true }).selectOption(next);
    const selected = await page
      .waitForFunction(() => (window as unknown as { __reportSelect?: { ms: number; ok: boolean } }).__reportSelect, undefined, { polling: "raf", timeout: 30_000 })
      .then((h) => h.jsonValue() as Promise<{ ms: number; ok: boolean }>);
    if (!selected.ok) {
      refused++;
      continue;
    }
    select.push(selected.ms);
    if (isCore(next, cols)) core.select.push(selected.ms);
    const summary = await page.evaluate(() => {
      const entries = performance.getEntriesByType("resource").filter((e) => e.name.endsWith("/summary"));
      return entries.length ? entries[entries.length - 1].duration : Number.NaN;
    });
    if (Number.isFinite(summary)) {
      api.push(summary);
      if (isCore(next, cols)) core.api.push(summary);
    }
  }
  const p = (values: number[], at: number) => (values.length ? Math.round(percentile(values, at)) : null);
  return {
    reportLoadInPageP95Ms: p(load, 95),
    reportLoadInPageP50Ms: p(load, 50),
    reportSelectInPageP95Ms: p(select, 95),
    reportSelectInPageP50Ms: p(select, 50),
    reportSummaryApiP95Ms: p(api, 95),
    reportSummaryApiP50Ms: p(api, 50),
    reportRuns: load.length,
    reportRefused: refused,
    // Without the "documents" extension: the layouts the page's target is about.
    reportCoreLoadInPageP95Ms: p(core.load, 95),
    reportCoreSelectInPageP95Ms: p(core.select, 95),
    reportCoreSummaryApiP95Ms: p(core.api, 95),
    reportCoreRuns: core.load.length,
  };
}

main().catch((err: unknown) => {
  console.error(`bench:browser: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
