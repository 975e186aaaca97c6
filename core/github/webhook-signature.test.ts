import { describe, expect, it } from "vitest";
import { bodySha256, signWebhook, verifyWebhookSignature } from "./webhook-signature";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("webhook signatures", () => {
  // GitHub's own example (docs: "Validating webhook deliveries", testing the webhook payload validation).
  const secret = "It's a Secret to Everybody";
  const body = bytes("Hello, World!");
  const header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

  it("ISSUE-33: GitHub's example signature verifies, and signing gives it back", async () => {
    expect(await verifyWebhookSignature(secret, body, header)).toBe(true);
    expect(await verifyWebhookSignature(secret, body, header.toUpperCase().replace("SHA256=", "sha256="))).toBe(true);
    expect(await signWebhook(secret, body)).toBe(header);
  });

  it("ISSUE-33: another secret, another body or a changed byte does not verify", async () => {
    expect(await verifyWebhookSignature("another secret", body, header)).toBe(false);
    expect(await verifyWebhookSignature(secret, bytes("Hello, World?"), header)).toBe(false);
    expect(await verifyWebhookSignature(secret, body, `${header.slice(0, -1)}8`)).toBe(false);
  });

  it("ISSUE-33: a missing or malformed header is simply false", async () => {
    for (const bad of [
      null,
      undefined,
      "",
      "sha256=",
      "sha1=757107ea0eb2509fc211221cce984b8a37570b6d",
      header.slice(7),
      `${header}00`,
      "sha256=zz".padEnd(71, "z"),
    ]) {
      expect(await verifyWebhookSignature(secret, body, bad), String(bad)).toBe(false);
    }
    expect(await verifyWebhookSignature("", body, header)).toBe(false);
  });

  it("ISSUE-33: the body's SHA-256 is lowercase hex", async () => {
    expect(await bodySha256(bytes("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
