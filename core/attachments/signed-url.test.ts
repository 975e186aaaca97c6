import { describe, expect, it } from "vitest";
import { ATTACHMENT_URL_TTL_MS, attachmentUrlKey, imageDelivery, isKimi, signAttachmentUrl, verifyAttachmentUrl } from "./signed-url";

const ID = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
const NOW = Date.parse("2026-12-03T12:00:00Z");
const key = () => attachmentUrlKey("a-test-kek-of-enough-length-0123456789");

async function signed(now = NOW) {
  const url = new URL(await signAttachmentUrl(await key(), { publicUrl: "https://guilds.example/", attachmentId: ID, now }));
  return { url, expires: url.searchParams.get("expires") ?? undefined, signature: url.searchParams.get("signature") ?? undefined };
}

describe("signed image URLs", () => {
  it("ATT-005: the URL names the attachment route and is valid for 15 minutes, not a moment more", async () => {
    const { url, expires, signature } = await signed();
    expect(`${url.origin}${url.pathname}`).toBe(`https://guilds.example/api/attachments/${ID}/signed`);
    expect(Number(expires) * 1000).toBe(NOW + ATTACHMENT_URL_TTL_MS);
    const at = async (now: number) => verifyAttachmentUrl(await key(), { attachmentId: ID, expires, signature, now });
    expect(await at(NOW)).toBe(true);
    expect(await at(NOW + ATTACHMENT_URL_TTL_MS - 1_000)).toBe(true);
    expect(await at(NOW + ATTACHMENT_URL_TTL_MS)).toBe(false);
    expect(await at(NOW + 24 * 3_600_000)).toBe(false);
  });

  it("ATT-005: an altered id, expiry or signature, another key, or a missing part is not valid", async () => {
    const { expires, signature } = await signed();
    const check = async (input: Partial<{ attachmentId: string; expires: string; signature: string }>, k = key()) =>
      verifyAttachmentUrl(await k, { attachmentId: ID, expires, signature, now: NOW, ...input });
    expect(await check({})).toBe(true);
    expect(await check({ attachmentId: "00000000-0000-4000-8000-000000000000" })).toBe(false);
    expect(await check({ expires: String(Number(expires) + 60) })).toBe(false);
    expect(await check({ signature: `${signature!.slice(0, -1)}${signature!.endsWith("A") ? "B" : "A"}` })).toBe(false);
    expect(await check({}, attachmentUrlKey("another-kek-of-enough-length-987654321"))).toBe(false);
    expect(await verifyAttachmentUrl(await key(), { attachmentId: ID, expires: undefined, signature, now: NOW })).toBe(false);
    expect(await verifyAttachmentUrl(await key(), { attachmentId: ID, expires, signature: "not-base64!", now: NOW })).toBe(false);
    // A far expiry is refused before its signature is even checked.
    expect(await check({ expires: String(Math.floor(NOW / 1000) + 86_400) })).toBe(false);
  });

  it("ATT-005 / ATT-006 / ATT-007: signed URLs for a remote provider; data URLs without a public URL, for a loopback or private provider or platform, and always for Kimi", () => {
    const remote = { baseURL: "https://api.openai.com/v1", model: "gpt-4.1" };
    expect(imageDelivery({ publicUrl: "https://guilds.example", ...remote })).toEqual({ kind: "signed", publicUrl: "https://guilds.example" });
    expect(imageDelivery({ publicUrl: undefined, ...remote })).toEqual({ kind: "data", reason: "no_public_url" });
    expect(imageDelivery({ publicUrl: "  ", ...remote })).toEqual({ kind: "data", reason: "no_public_url" });
    expect(imageDelivery({ publicUrl: "http://127.0.0.1:8787", ...remote })).toEqual({ kind: "data", reason: "local_platform" });
    for (const baseURL of ["http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://10.0.0.5/v1", "http://[::1]:9/v1"]) {
      expect(imageDelivery({ publicUrl: "https://guilds.example", baseURL, model: "llava" }), baseURL).toEqual({ kind: "data", reason: "local_provider" });
    }
    expect(imageDelivery({ publicUrl: "https://guilds.example", baseURL: "https://openrouter.ai/api/v1", model: "moonshotai/Kimi-K2" })).toEqual({
      kind: "data",
      reason: "kimi",
    });
    expect(isKimi("anything", "https://api.moonshot.ai/v1")).toBe(true);
    expect(isKimi("gpt-4.1", "https://api.openai.com/v1")).toBe(false);
  });
});
