import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { attachmentUrlKey, verifyAttachmentUrl } from "../../../core/attachments/signed-url";
import { attachmentKey } from "../../../core/db/schema";
import { promptHash } from "../../../core/projection/prompt-hash";
import type { ChatPayload, StoredRow } from "../../../core/projection/types";
import { generationBounds } from "./request-bounds";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const platform = { ...(env as unknown as Env), PUBLIC_URL: "https://guilds.example" };
const REMOTE = { baseURL: "https://api.provider.example/v1", model: "vision-model" };
const NOW = Date.parse("2026-12-03T12:00:00Z");

const imageOf = (message: unknown) =>
  (message as { content: Array<{ type: string; image_url?: { url: string } }> }).content.find((p) => p.type === "image_url")!.image_url!.url;

describe("images as the provider request carries them (ATT-005..007)", () => {
  const id = crypto.randomUUID();
  const system: StoredRow = { seq: 0, generation: null, role: "system", payload: { role: "system", content: "sys" }, metadata: {}, tokenCount: 5 };
  const user: StoredRow = {
    seq: 1,
    generation: 1,
    role: "user",
    payload: { role: "user", content: "what is this?" },
    metadata: { attachments: [{ id, filename: "dot.png", mime: "image/png", kind: "image" }] },
    tokenCount: 10,
  };
  const rows = [system, user];
  const messages: ChatPayload[] = rows.map((r) => r.payload);

  beforeAll(async () => {
    await platform.ATTACHMENTS.put(
      attachmentKey(id),
      Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)),
      { httpMetadata: { contentType: "image/png" } },
    );
  });

  it("ATT-005: a remote provider gets a 15-minute signed URL of the attachment route, not the bytes", async () => {
    const sent = await generationBounds(platform, REMOTE, () => NOW).hydrate(messages, rows);
    const url = new URL(imageOf(sent[1]));
    expect(`${url.origin}${url.pathname}`).toBe(`https://guilds.example/api/attachments/${id}/signed`);
    expect(Number(url.searchParams.get("expires")) * 1000).toBe(NOW + 15 * 60_000);
    const key = await attachmentUrlKey(platform.SECRETS_KEK);
    const check = (now: number) =>
      verifyAttachmentUrl(key, { attachmentId: id, expires: url.searchParams.get("expires")!, signature: url.searchParams.get("signature")!, now });
    expect(await check(NOW + 14 * 60_000)).toBe(true);
    expect(await check(NOW + 15 * 60_000)).toBe(false);
  });

  it("ATT-006 / ATT-007: a loopback provider, Kimi, or a platform without a public URL gets a data URL", async () => {
    const data = `data:image/png;base64,${PNG}`;
    const loopback = await generationBounds(platform, { baseURL: "http://127.0.0.1:9999/v1", model: "vision-model" }).hydrate(messages, rows);
    expect(imageOf(loopback[1])).toBe(data);
    const kimi = await generationBounds(platform, { baseURL: REMOTE.baseURL, model: "kimi-k2" }).hydrate(messages, rows);
    expect(imageOf(kimi[1])).toBe(data);
    const unsigned = await generationBounds({ ...platform, PUBLIC_URL: undefined }, REMOTE).hydrate(messages, rows);
    expect(imageOf(unsigned[1])).toBe(data);
    const noKey = await generationBounds({ ...platform, SECRETS_KEK: undefined }, REMOTE).hydrate(messages, rows);
    expect(imageOf(noKey[1])).toBe(data);
  });

  it("ATT-005 / PROJ-010: replay is exact whenever the URL was signed: the hash and the stored rows hold the reference, not the URL", async () => {
    const before = await promptHash(structuredClone(messages), [], REMOTE.model);
    const first = await generationBounds(platform, REMOTE, () => NOW).hydrate(messages, rows);
    const later = await generationBounds(platform, REMOTE, () => NOW + 3_600_000).hydrate(messages, rows);
    // The requests differ (each signed when sent) ...
    expect(imageOf(first[1])).not.toBe(imageOf(later[1]));
    // ... the prompt they were built from, its hash and the stored payload do not.
    expect(await promptHash(structuredClone(messages), [], REMOTE.model)).toBe(before);
    expect(user.payload).toEqual({ role: "user", content: "what is this?" });
    expect(JSON.stringify(messages)).not.toContain("signed");
  });
});
