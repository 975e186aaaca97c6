import { describe, expect, it } from "vitest";
import { Redactor } from "../output/redaction";
import { MAX_PROVIDER_MESSAGE, providerErrorMessage } from "./provider-error";

describe("provider error messages", () => {
  it("ERR-004: a provider's error body is redacted, one line, and at most 200 characters", () => {
    const redactor = new Redactor([{ name: "MODEL_API_KEY", value: "sk-test-provider-key-0123456789" }]);
    const body = `model provider answered 401: Incorrect key sk-test-provider-key-0123456789\n<html>${"x".repeat(5000)}</html>`;
    const message = providerErrorMessage(body, redactor);
    expect(message.length).toBeLessThanOrEqual(MAX_PROVIDER_MESSAGE);
    expect(message).toContain("[REDACTED:MODEL_API_KEY]");
    expect(message).not.toContain("sk-test-provider-key");
    expect(message).not.toMatch(/[\n\r]/);
    expect(message.startsWith("model provider answered 401:")).toBe(true);
  });

  it("HARDEN-4: key-shaped tokens and bearer credentials the redaction set does not know are masked too", () => {
    const message = providerErrorMessage("denied for Authorization: Bearer abc.def.ghi and sk-live-ABCDEFGHIJKLMNOP", Redactor.none);
    expect(message).toBe("denied for Authorization: Bearer [REDACTED] and [REDACTED]");
  });

  it("HARDEN-4: a secret at the cut is redacted whole, never half kept", () => {
    const key = "sk-test-provider-key-0123456789";
    const raw = `${"a".repeat(MAX_PROVIDER_MESSAGE - 10)} ${key}`;
    const message = providerErrorMessage(raw, new Redactor([{ name: "K", value: key }]));
    expect(message).not.toContain("sk-test");
    expect(message.length).toBeLessThanOrEqual(MAX_PROVIDER_MESSAGE);
  });
});
