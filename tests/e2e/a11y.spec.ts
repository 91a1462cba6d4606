import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { gridReady, signIn } from "./helpers";

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(" | ")}`);
}

test.describe("accessibility (axe)", () => {
  test("sign-in page", async ({ page }) => {
    await page.goto("/login");
    expect(await seriousViolations(page)).toEqual([]);
  });

  test("chargebacks, pre-arbitration, and the drawer", async ({ page }) => {
    await signIn(page);
    await gridReady(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator("tbody tr[data-row-index]").first().press("Enter");
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await page.goto("/pre-arbitration");
    await gridReady(page);
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator("tbody tr[data-row-index]").first().press("Enter");
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });

  for (const [name, phone] of [["the worklist and the overview", false], ["the worklist and the overview on a phone", true]] as const) {
    test(name, async ({ page }) => {
      if (phone) await page.setViewportSize({ width: 390, height: 844 });
      await signIn(page, undefined, "/worklist");
      await gridReady(page);
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto("/overview?from=2026-01-01&to=2026-01-31");
      await expect(page.getByTestId("chart-ecp").locator("figcaption")).not.toBeEmpty();
      expect(await seriousViolations(page)).toEqual([]);
    });
  }

  test("the empty and error states", async ({ page }) => {
    await signIn(page, undefined, null);
    await page.goto("/chargebacks?merchant=NOBODY");
    await expect(page.getByTestId("empty-state")).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe("keyboard only", () => {
  test("sign in, filter, sort and open a record without a mouse", async ({ page }) => {
    await page.goto("/login?next=/chargebacks");
    await page.keyboard.type("merchant@e2e.test"); // the e-mail field has focus on arrival
    await page.keyboard.press("Tab");
    await page.keyboard.type("e2e-password-1");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/chargebacks/);
    await gridReady(page);
    // Tab reaches the shop picker; typing narrows it, the arrows walk its options (the shop comes
    // after its groups), Enter chooses one and Escape applies the choice.
    const shops = page.getByRole("combobox", { name: "Shops", exact: true });
    for (let i = 0; i < 40 && !(await shops.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await page.keyboard.type("SHOP_A");
    const option = page.getByRole("listbox").getByRole("option", { name: "SHOP_A", exact: true });
    await expect(option).toBeVisible();
    const optionId = await option.getAttribute("id");
    for (let i = 0; i < 5 && (await shops.getAttribute("aria-activedescendant")) !== optionId; i++) await page.keyboard.press("ArrowDown");
    await expect(shops).toHaveAttribute("aria-activedescendant", optionId!);
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Remove SHOP_A", exact: true })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page).toHaveURL(/shops=SHOP_A/);
    const sortButton = page.getByRole("columnheader", { name: "Merchant" }).getByRole("button");
    for (let i = 0; i < 40 && !(await sortButton.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("columnheader", { name: "Merchant" })).toHaveAttribute("aria-sort", "ascending");
    await gridReady(page);
    const row = page.locator("tbody tr[data-row-index]").first();
    for (let i = 0; i < 40 && !(await row.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect(row).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog")).toBeVisible();
    // Focus is trapped in the drawer: tabbing around never leaves it.
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(row).toBeFocused();
  });
});
