import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { gridReady, screenshotPath, signIn } from "./helpers";

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test.describe("on a 390x844 phone", () => {
  test("filters fold into a panel, the grid scrolls sideways, the drawer fills the screen", async ({ page }) => {
    await signIn(page);
    await gridReady(page);
    const toggle = page.getByRole("button", { name: /^Filters/ });
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByLabel("File date from")).toBeHidden();
    const overflow = await page.locator("table").evaluate((table) => {
      const box = table.parentElement!;
      return box.scrollWidth > box.clientWidth;
    });
    expect(overflow).toBe(true);
    // The page itself does not scroll sideways; only the grid does.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: screenshotPath("phone-grid.png") });
    await toggle.click();
    await expect(page.getByLabel("File date from")).toBeVisible();
    await page.getByLabel("File date from").fill("2026-01-20");
    await expect(page).toHaveURL(/from=2026-01-20/);
    await gridReady(page);
    await page.locator("tbody tr[data-row-index]").first().tap();
    const drawer = page.getByRole("dialog");
    await expect(drawer).toBeVisible();
    const box = await drawer.boundingBox();
    expect(box!.width).toBeGreaterThanOrEqual(389);
    await page.screenshot({ path: screenshotPath("phone-drawer.png") });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  });
});
