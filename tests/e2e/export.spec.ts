import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { formatMinor } from "../../lib/domain/money";
import { gridReady, ON_POSTGRES, rangeText, signIn, testDb, USERS } from "./helpers";

test.describe("CSV export", ON_POSTGRES, () => {
  test("holds the whole selection (all pages), in order, with exact amounts", async ({ page }) => {
    await signIn(page, undefined, null);
    await page.goto("/chargebacks?shops=SHOP_B&from=2026-01-04&to=2026-01-20&sort=PAYMENT_ORDER_NR&dir=desc&size=10");
    await gridReady(page);
    await expect(rangeText(page)).toHaveText(/^Rows 1–10 of /);
    const downloadPromise = page.waitForEvent("download");
    await page.getByRole("link", { name: /^Export CSV/ }).click();
    const download = await downloadPromise;
    expect(download.suggestedFilename()).toMatch(/^chargebacks-\d{8}-\d{6}\.csv$/);
    const text = fs.readFileSync((await download.path())!, "utf8");
    const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];

    const expected = await testDb().all(
      "select * from chargebacks where shop_code = 'SHOP_B' and file_date between '2026-01-04' and '2026-01-20' order by payment_order_nr desc, id desc",
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(rows.length).toBe(expected.length);
    rows.forEach((row, i) => {
      expect(row.shop_code).toBe("SHOP_B");
      expect(row.acq_ref_nr).toBe(expected[i].acq_ref_nr);
      expect(row.chb_amount).toBe(formatMinor(expected[i].chb_amount as number));
      expect(row.merchant_name).toBe(expected[i].merchant_name);
    });
  });

  test("stays inside the user's scope and refuses bad parameters", async ({ page }) => {
    await signIn(page, USERS.single);
    const outside = await page.request.get("/api/export/chargeback?shops=SHOP_B");
    expect(outside.status()).toBe(403);
    const misspelt = await page.request.get("/api/export/chargeback?shop=SHOP_A");
    expect(misspelt.status()).toBe(400);
    expect((await misspelt.json()).errors[0].field).toBe("shop");
    const parentOnPreArb = await page.request.get("/api/export/pre_arbitration?parent=PMID1");
    expect(parentOnPreArb.status()).toBe(400);
    const all = await page.request.get("/api/export/chargeback");
    expect(all.status()).toBe(200);
    const rows = parse(await all.text(), { bom: true, columns: true }) as Record<string, string>[];
    const n = (await testDb().get<{ n: number }>("select count(*) as n from chargebacks where shop_code = 'SHOP_A'")).n;
    expect(rows.length).toBe(n);
    expect(new Set(rows.map((r) => r.shop_code))).toEqual(new Set(["SHOP_A"]));
  });

  test("needs a session", async ({ request }) => {
    const response = await request.get("/api/export/chargeback");
    expect(response.status()).toBe(401);
    expect(response.headers()["content-type"]).toContain("application/problem+json");
  });
});
