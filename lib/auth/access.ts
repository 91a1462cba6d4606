import { SHOP_CODE_PATTERN } from "./signature";

/** Access lists: ordered, de-duplicated shop codes; stored as JSON text. */

export function parseAccessList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export function checkShopCode(code: string): void {
  if (!SHOP_CODE_PATTERN.test(code)) {
    throw new AccountError(`invalid shop code ${JSON.stringify(code)}: 1 to 100 characters, no spaces or commas`);
  }
}

export class AccountError extends Error {
  override name = "AccountError";
}
