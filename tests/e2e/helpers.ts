import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { CompiledQuery } from "kysely";
import { normaliseEmail } from "@/lib/auth/accounts";
import { createSession, SESSION_COOKIE } from "@/lib/auth/sessions";
import { openDatabase } from "@/lib/data/connection/db";
import { USERS } from "./global-setup";

export { USERS };

type Params = readonly unknown[];

/**
 * The test database, on whichever backend global-setup started the server (E2E_DATABASE_URL):
 * what the pages show is checked against it, and a test may change it (a session's expiry).
 * Statements are written once for both backends with `?` placeholders; each call opens the
 * database, runs one statement and closes it. BIGINT values come back as numbers on PostgreSQL
 * too (lib/data/connection/db.ts), and on SQLite the attached state database (sessions) is reachable
 * by its tables' plain names.
 */
export interface TestDb {
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  /** the first row; a query that answers none fails the test */
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T>;
  /** the number of rows changed */
  run(sql: string, params?: Params): Promise<number>;
}

function databaseUrl(): string {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error("E2E_DATABASE_URL is not set: run through playwright (global-setup)");
  return url;
}

export function testDb(): TestDb {
  const url = databaseUrl();
  const execute = async (text: string, params: Params = []) => {
    const db = await openDatabase(url);
    try {
      const statement = db.dialect === "postgres" ? numberedPlaceholders(text) : text;
      return await db.db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(statement, [...params]));
    } finally {
      await db.close();
    }
  };
  return {
    all: async <T>(text: string, params?: Params) => (await execute(text, params)).rows as T[],
    get: async <T>(text: string, params?: Params) => {
      const { rows } = await execute(text, params);
      if (rows.length === 0) throw new Error(`no row for: ${text}`);
      return rows[0] as T;
    },
    run: async (text: string, params?: Params) => Number((await execute(text, params)).numAffectedRows ?? 0),
  };
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...`, leaving quoted strings and names alone. */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  let quote: string | null = null;
  let out = "";
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else {
      out += ch === "?" ? `$${++n}` : ch;
    }
  }
  return out;
}

/**
 * Where a test saves a screenshot of the README: docs/screenshots when they were asked for
 * (`npm run screenshots` sets E2E_SCREENSHOTS=1, on SQLite); otherwise the test's own output
 * folder (test-results/, not in git), so that a test run leaves the tree as it found it.
 */
export function screenshotPath(file: string): string {
  return process.env.E2E_SCREENSHOTS === "1" ? `docs/screenshots/${file}` : test.info().outputPath(file);
}

/**
 * The tag of the specs that the suite runs on PostgreSQL as well as SQLite (scripts/test.sh runs
 * `--grep @postgres` for the second backend): those whose page reads or writes the database by a
 * path of its own, which no API test covers on both backends: the sign-in action and its sessions
 * and throttling, the settings and unsubscribe pages, the CSV export as the grid requests it.
 * Every other page shows what the API routes answer, and tests/api runs those on both backends.
 */
export const ON_POSTGRES = { tag: "@postgres" } as const;

/** The fixture's files are from early 2026: the browser's today is pinned just after them, so
 * answer-by dates (and the screenshots) read as they would on the day the files arrived. */
export const BROWSER_TODAY = new Date("2026-02-06T09:00:00Z");

/**
 * Signs `user` in, then opens `next` (nothing when it is null). The sign-in form is what
 * tests/e2e/auth.spec.ts tests, through `signInWithForm`; every other test starts from a session
 * made as the sign-in action makes it (`createSession`, lib/auth/sessions.ts), its cookie set as
 * the action sets it. Each test still has a session of its own, without the form's page load,
 * password hash and redirect (about a second a test, 80 tests).
 */
export async function signIn(page: Page, user: { email: string; password: string } = USERS.merchant, next: string | null = "/chargebacks") {
  await page.clock.setFixedTime(BROWSER_TODAY);
  const db = await openDatabase(databaseUrl());
  let session: { token: string; expiresAt: number };
  try {
    const row = await db.db.selectFrom("users").select("id").where("email", "=", normaliseEmail(user.email)).executeTakeFirstOrThrow();
    session = await createSession(db.db, Number(row.id));
  } finally {
    await db.close();
  }
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error("E2E_BASE_URL is not set: run through playwright (global-setup)");
  await page.context().addCookies([{ name: SESSION_COOKIE, value: session.token, url, httpOnly: true, sameSite: "Lax", expires: Math.floor(session.expiresAt / 1000) }]);
  if (next !== null) await page.goto(next);
}

/** Signs in through the form of /login, as a person does, and waits to be sent on to `next`. */
export async function signInWithForm(page: Page, user: { email: string; password: string } = USERS.merchant, next = "/chargebacks") {
  await page.clock.setFixedTime(BROWSER_TODAY);
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("E-mail address").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/login"));
}

/** The grid has rows (not skeletons) on screen. */
export async function gridReady(page: Page) {
  await expect(page.locator("tbody tr[data-row-index]").first()).toBeVisible();
  await expect(page.getByTestId("skeleton-row")).toHaveCount(0);
}

export function rangeText(page: Page) {
  return page.getByTestId("row-range");
}

/** axe's serious and critical findings within `include` (counted as tests/e2e/a11y.spec.ts counts them). */
export async function seriousAxeViolations(page: Page, include = "body"): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(include).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(" | ")}`);
}

/** Chooses shops in the shop picker (by code) and closes it, which applies the choice. */
export async function chooseShops(page: Page, codes: readonly string[]) {
  const picker = page.getByRole("combobox", { name: "Shops", exact: true });
  await picker.click();
  for (const code of codes) {
    await picker.fill(code);
    await page.getByRole("listbox").getByRole("option", { name: code, exact: true }).click();
    await expect(page.getByRole("button", { name: `Remove ${code}`, exact: true })).toBeVisible();
  }
  // Escape in the field closes the list, which applies the choice.
  await picker.press("Escape");
  await expect(page.getByRole("listbox")).toBeHidden();
}

/** The shops the picker shows as chosen (its chips). */
export async function chosenShops(page: Page): Promise<string[]> {
  const names = await page.getByRole("button", { name: /^Remove / }).evaluateAll((buttons) => buttons.map((b) => b.getAttribute("aria-label") ?? ""));
  return names.map((n) => n.replace(/^Remove /, ""));
}
