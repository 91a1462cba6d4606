import fs from "node:fs";
import { defineConfig, devices } from "@playwright/test";

// Debian's Chromium (this project's machines); otherwise the Playwright-managed browser of a
// developer machine. Debian's headless shell (package chromium-headless-shell) took the SQLite
// specs from 268 to 218 s, but in one run of three the settings spec then met two "Time of day"
// fields at once, so the suite stays in the full browser until that is understood: CHROMIUM_PATH=/usr/lib/chromium/chromium-headless-shell runs it there
// (docs/performance.md, "The test suite's time").
const debianChromium = "/usr/bin/chromium";
const executablePath = process.env.CHROMIUM_PATH || (fs.existsSync(debianChromium) ? debianChromium : undefined);

// The suite runs on SQLite, or on PostgreSQL with E2E_BACKEND=postgres (global-setup.ts). Each
// backend keeps its own results and report, so that one run never overwrites the other's.
const suffix = process.env.E2E_BACKEND === "postgres" ? "-postgres" : "";

export default defineConfig({
  testDir: "tests/e2e",
  // One file at a time by default: on two cores the browser and the server already use both
  // (two workers took 351 s, one 346 s). The specs are written to run
  // side by side all the same (a test changes only what is its own: its session, its user's
  // settings; the saved views' tests have a user of their own): E2E_WORKERS=2 on a larger machine.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS || 1),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: `test-results${suffix}`,
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never", outputFolder: `playwright-report${suffix}` }]],
  globalSetup: "./tests/e2e/global-setup.ts",
  use: {
    baseURL: process.env.E2E_BASE_URL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"], viewport: { width: 1440, height: 900 } } },
  ],
});
