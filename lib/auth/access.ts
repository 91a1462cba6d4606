import { SHOP_CODE_PATTERN } from "./signature";

/** Access lists: ordered, de-duplicated shop codes; stored as JSON text. */

export function parseAccessList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** "a,b, c" -> ["a","b","c"]; throws AccountError on an empty or malformed code. */
export function splitAccessOption(option: string): string[] {
  const codes = option.split(",").map((c) => c.trim());
  for (const code of codes) checkShopCode(code);
  return [...new Set(codes)];
}

export function checkShopCode(code: string): void {
  if (!SHOP_CODE_PATTERN.test(code)) {
    throw new AccountError(`invalid shop code ${JSON.stringify(code)}: 1 to 100 characters, no spaces or commas`);
  }
}

export class AccountError extends Error {
  override name = "AccountError";
}
