import { expect, type Page, test } from "@playwright/test";
import { HEAD_OFFICE } from "./fixture";
import { gridReady, screenshotPath, seriousAxeViolations, signIn, USERS } from "./helpers";

/**
 * The shop picker (docs/architecture.md, "Shop picker") as a head office with 200 shops of 40
 * merchants under 8 parents uses it: found by merchant name, parent, id or code; a group's
 * "All shops of" option; chips; the keyboard alone; the choice applied when the list closes.
 */

const picker = (page: Page) => page.getByRole("combobox", { name: "Shops", exact: true });
const chips = (page: Page) => page.getByRole("button", { name: /^Remove / });
const shopsInUrl = (page: Page) => new URL(page.url()).searchParams.get("shops")?.split(",") ?? [];
/** The shops of merchant m (fixture.ts: shop i belongs to merchant floor(i / 5)). */
const shopsOfMerchant = (m: number) => HEAD_OFFICE.shops.slice(m * 5, m * 5 + 5);

test.describe("shop picker with 200 shops", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, USERS.headOffice, "/chargebacks");
    await gridReady(page);
  });

  test("typing part of a merchant's name finds its group; All shops of selects all of them, applied when the list closes", async ({ page }) => {
    const m = 9; // "Books Lyon 10" under "Holding South"
    const merchant = HEAD_OFFICE.merchant(m);
    await picker(page).click();
    await picker(page).fill("books LYON");
    const listbox = page.getByRole("listbox");
    await expect(listbox).toBeVisible();
    // Grouped by parent, then merchant; only the matching merchant's shops are listed.
    await expect(listbox.getByRole("option", { name: `All shops of ${HEAD_OFFICE.parent(1).name} (${HEAD_OFFICE.parent(1).id})` })).toBeVisible();
    const group = listbox.getByRole("option", { name: new RegExp(`^All shops of ${merchant.name} \\(${merchant.id}\\)`) });
    await expect(group).toBeVisible();
    await expect(listbox.getByRole("option", { name: /^HQ-/ })).toHaveCount(5);
    await expect(listbox.getByRole("group", { name: `${merchant.name} (${merchant.id})` })).toBeVisible();

    await group.click();
    await expect(chips(page)).toHaveCount(5);
    for (const shop of shopsOfMerchant(m)) await expect(page.getByRole("button", { name: `Remove ${shop}`, exact: true })).toBeVisible();
    // Still a draft: the view has not changed while the list is open.
    expect(shopsInUrl(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath("shop-picker.png") });
    await page.keyboard.press("Escape");
    await expect(listbox).toBeHidden();
    await expect.poll(() => shopsInUrl(page)).toEqual(shopsOfMerchant(m));
    await gridReady(page);
    await expect(page.getByTestId("row-range")).toHaveText(/ of 5$/);

    // A chip's button and "Clear shops" apply at once.
    await page.getByRole("button", { name: `Remove ${shopsOfMerchant(m)[0]}`, exact: true }).click();
    await expect.poll(() => shopsInUrl(page)).toEqual(shopsOfMerchant(m).slice(1));
    await page.getByRole("button", { name: "Clear shops" }).click();
    await expect.poll(() => shopsInUrl(page)).toEqual([]);
    await expect(chips(page)).toHaveCount(0);
  });

  test("matches shop code, merchant id, parent id and parent name anywhere, in any case", async ({ page }) => {
    const options = page.getByRole("listbox").getByRole("option", { name: /^HQ-/ });
    await picker(page).fill("hq-19");
    await expect(options).toHaveCount(10); // HQ-190 ... HQ-199
    await picker(page).fill("hqm-03");
    await expect(options).toHaveCount(5);
    await expect(page.getByRole("option", { name: /^All shops of .*\(HQM-03\)/ })).toBeVisible();
    await picker(page).fill("hqp-8");
    await expect(options).toHaveCount(25);
    await picker(page).fill("ISLAND");
    await expect(options).toHaveCount(25);
    await expect(page.getByRole("option", { name: /^All shops of Holding Island \(HQP-8\)/ })).toBeVisible();
    await picker(page).fill("no such shop");
    await expect(options).toHaveCount(0);
    await expect(page.getByText("No shop matches “no such shop”.")).toBeVisible();
    // A parent's option chooses all 25 of its shops at once.
    await picker(page).fill("holding island");
    await page.getByRole("option", { name: /^All shops of Holding Island/ }).click();
    await expect(chips(page)).toHaveCount(25);
    await page.keyboard.press("Escape");
    await expect.poll(() => shopsInUrl(page).length).toBe(25);
    await gridReady(page);
    await expect(page.getByTestId("row-range")).toHaveText(/ of 25$/);
  });

  test("works with the keyboard alone: arrows, Enter, Escape and Backspace", async ({ page }) => {
    const m = 18; // "Travel Porto 19" under "Holding West"
    const shops = shopsOfMerchant(m);
    await picker(page).focus();
    await page.keyboard.type("travel porto");
    await expect(page.getByRole("listbox").getByRole("option", { name: /^HQ-/ })).toHaveCount(5);
    // The parent's option, then the merchant's, then its shops.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect(picker(page)).toHaveAttribute("aria-activedescendant", /.+/);
    const active = await picker(page).getAttribute("aria-activedescendant");
    await expect(page.locator(`[id="${active}"]`)).toHaveAccessibleName(new RegExp(`^All shops of ${HEAD_OFFICE.merchant(m).name}`));
    await page.keyboard.press("Enter");
    await expect(chips(page)).toHaveCount(5);
    // The next option is the first shop: Enter takes it out again.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(chips(page)).toHaveCount(4);
    await expect(page.getByRole("button", { name: `Remove ${shops[0]}`, exact: true })).toHaveCount(0);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("listbox")).toBeHidden();
    await expect.poll(() => shopsInUrl(page)).toEqual(shops.slice(1));
    // The field is empty again: Backspace removes the last chip, and the view follows at once.
    await expect(picker(page)).toHaveValue("");
    await expect(picker(page)).toBeFocused();
    await page.keyboard.press("Backspace");
    await expect.poll(() => shopsInUrl(page)).toEqual(shops.slice(1, 4));
    await gridReady(page);
    await expect(page.getByTestId("row-range")).toHaveText(/ of 3$/);
  });

  test("the picker and its open list pass axe at desktop and phone widths", async ({ page }) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      if (width < 768) await page.getByRole("button", { name: /^Filters/ }).click();
      await picker(page).fill("outdoor");
      await expect(page.getByRole("listbox")).toBeVisible();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.keyboard.press("Escape");
    }
  });
});
