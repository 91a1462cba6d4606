import type { Page } from "@playwright/test";

/**
 * The shop picker's keystrokes, measured in the page (npm run bench:browser): from a typed
 * character's input event until the listbox lists the options for the field's new text and the
 * next frame is drawn. The queries are parts of the user's own shop codes and merchant and parent
 * names, read from the picker's list, so the figure holds for whatever history is loaded. Each
 * query is typed one character at a time into an emptied field, `runs` queries in all.
 */
export async function measurePicker(page: Page, url: string, runs: number) {
  await page.goto(`${url}/chargebacks`);
  const field = page.getByRole("combobox", { name: "Shops", exact: true });
  await field.click();
  const listbox = page.getByRole("listbox");
  await listbox.waitFor({ state: "visible" });
  // "All 2000 shops" or "3 of 2000 shops chosen", the line the field is described by.
  const shops = await field.evaluate((input) => {
    const text = document.getElementById(input.getAttribute("aria-describedby") ?? "")?.textContent ?? "";
    return Number(/(\d+) shops/.exec(text)?.[1] ?? 0);
  });
  // Query material: option names of the full list (shop codes, "All shops of <name> (<id>)").
  const names = await listbox.getByRole("option").evaluateAll((options) => options.map((o) => o.textContent ?? ""));
  const words = [...new Set(names.flatMap((n) => n.replace(/^All shops of /, "").replace(/·.*$/, "").split(/[\s()]+/)).filter((w) => w.length >= 4))];
  if (words.length === 0) throw new Error("the shop picker listed nothing to search for");

  await page.evaluate(() => {
    const w = window as unknown as { __pickerMs: number[]; __typedAt?: number };
    w.__pickerMs = [];
    const input = document.querySelector<HTMLInputElement>('[role="combobox"][aria-describedby]')!;
    input.addEventListener("input", (e) => {
      if ((e as InputEvent).inputType === "insertText") w.__typedAt = e.timeStamp;
    });
    new MutationObserver(() => {
      const menu = document.querySelector<HTMLElement>('[role="listbox"][data-search]');
      if (w.__typedAt === undefined || !menu || menu.dataset.search !== input.value) return;
      const at = w.__typedAt;
      w.__typedAt = undefined;
      requestAnimationFrame(() => w.__pickerMs.push(performance.now() - at));
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-search"] });
  });

  let typed = 0;
  for (let i = 0; i < runs; i++) {
    const word = words[(i * 7919) % words.length];
    const query = word.slice(0, Math.min(word.length, 6)).toLowerCase();
    await field.fill("");
    for (const ch of query) {
      typed++;
      await field.press(ch === " " ? "Space" : ch);
      await page.waitForFunction((n) => (window as unknown as { __pickerMs: number[] }).__pickerMs.length >= n, typed, { polling: "raf", timeout: 10_000 });
    }
  }
  const ms = await page.evaluate(() => (window as unknown as { __pickerMs: number[] }).__pickerMs);
  await page.keyboard.press("Escape");
  return { shops, keystrokes: ms.length, ms };
}
