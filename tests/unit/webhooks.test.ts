import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_RETRY_SECONDS, webhookRetrySeconds } from "@/lib/config";
import { checkEndpointUrl } from "@/lib/webhooks/endpoints";
import { webhookSignature } from "@/lib/webhooks/signature";

describe("WEBHOOK_RETRY_SECONDS", () => {
  it("defaults to the contract's schedule", () => {
    expect(webhookRetrySeconds({})).toEqual([60, 300, 1800, 7200, 18000, 36000, 86400]);
    expect(webhookRetrySeconds({ WEBHOOK_RETRY_SECONDS: " " })).toBe(DEFAULT_WEBHOOK_RETRY_SECONDS);
  });

  it("reads comma-separated whole seconds, spaces allowed", () => {
    expect(webhookRetrySeconds({ WEBHOOK_RETRY_SECONDS: "1,2" })).toEqual([1, 2]);
    expect(webhookRetrySeconds({ WEBHOOK_RETRY_SECONDS: " 5 , 2592000" })).toEqual([5, 2592000]);
  });

  it.each(["0", "1,,2", "1.5", "-1", "60s", "2592001", "1,2,", Array(51).fill("1").join(",")])("refuses %j in one clear message", (raw) => {
    expect(() => webhookRetrySeconds({ WEBHOOK_RETRY_SECONDS: raw })).toThrow(/^WEBHOOK_RETRY_SECONDS must be comma-separated whole seconds/);
  });
});

describe("the Dispute-Signature header", () => {
  it("is t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">", () => {
    const body = '{"id":"evt_1","data":{"shop_codes":["Ä"]}}';
    const expected = crypto.createHmac("sha256", "whsec_test").update(Buffer.from(`1795361686.${body}`, "utf8")).digest("hex");
    expect(webhookSignature("whsec_test", body, 1795361686)).toBe(`t=1795361686,v1=${expected}`);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("endpoint URLs", () => {
  it("takes absolute http and https URLs", () => {
    expect(checkEndpointUrl("https://merchant.example.com/hook?x=1")).toBe("https://merchant.example.com/hook?x=1");
    expect(checkEndpointUrl("http://127.0.0.1:8080/h")).toBe("http://127.0.0.1:8080/h");
  });

  it.each(["ftp://example.com/", "example.com/hook", "/hook", "javascript:alert(1)", "file:///etc/passwd", "https://user:pw@example.com/", "https://example.com/a b"])("refuses %j", (raw) => {
    expect(() => checkEndpointUrl(raw)).toThrow(/URL/);
  });
});
