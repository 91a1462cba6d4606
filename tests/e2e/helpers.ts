import { expect, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { stateFileOf } from "@/lib/data/db";
import { USERS } from "./global-setup";

export { USERS };

/** The test database, read-only: what the pages show is checked against it. */
export function openTestDb() {
  const file = process.env.E2E_DATABASE_FILE;
  if (!file) throw new Error("E2E_DATABASE_FILE is not set: run through playwright (global-setup)");
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** A read-write handle on the database of sessions and nonces, for tests that change a session. */
export function openStateDbWritable() {
  return new Database(stateFileOf(process.env.E2E_DATABASE_FILE!), { fileMustExist: true });
}

/** The fixture's files are from early 2026: the browser's today is pinned just after them, so
 * answer-by dates (and the screenshots) read as they would on the day the files arrived. */
export const BROWSER_TODAY = new Date("2026-02-06T09:00:00Z");

export async function signIn(page: Page, user = USERS.merchant, next = "/chargebacks") {
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
