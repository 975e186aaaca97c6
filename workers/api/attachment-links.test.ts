import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ATTACHMENT_URL_TTL_MS, attachmentUrlKey, signAttachmentUrl } from "../../core/attachments/signed-url";
import { seedGuild } from "../../test/workerd/seed";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const worker = () => (exports as unknown as { default: Fetcher }).default;

async function upload(token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0))], "dot.png", { type: "image/png" }));
  const res = await worker().fetch("http://api.test/api/attachments", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const sign = async (attachmentId: string, now = Date.now()) =>
  signAttachmentUrl(await attachmentUrlKey(env.SECRETS_KEK), { publicUrl: "http://api.test", attachmentId, now });

describe("signed image links (ATT-005)", () => {
  let id: string;
  beforeAll(async () => {
    id = await upload((await seedGuild()).token);
  }, 60_000);

  it("ATT-005: a signed link serves the image without a bearer token, with its stored type", async () => {
    const res = await worker().fetch(await sign(id));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(btoa(String.fromCharCode(...new Uint8Array(await res.arrayBuffer())))).toBe(PNG);
  });

  it("ATT-005: a link signed 15 minutes ago, or altered, or for another id, is the same bare 403; nothing else is said", async () => {
    const expired = await sign(id, Date.now() - ATTACHMENT_URL_TTL_MS - 1_000);
    const good = new URL(await sign(id));
    const altered = new URL(good);
    altered.searchParams.set("expires", String(Number(good.searchParams.get("expires")) - 30));
    const moved = good.href.replace(id, "00000000-0000-4000-8000-000000000000");
    const bare = `http://api.test/api/attachments/${id}/signed`;
    const bodies = new Set<string>();
    for (const url of [expired, altered.href, moved, bare, `${bare}?expires=99999999999&signature=${"A".repeat(43)}`]) {
      const res = await worker().fetch(url);
      expect(res.status, url).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      bodies.add(await res.text());
    }
    expect([...bodies]).toEqual([JSON.stringify({ error: { code: "attachment.link_invalid", message: "This link is not valid", details: {} } })]);
    // The bearer-token route is unchanged: no token, 401.
    expect((await worker().fetch(`http://api.test/api/attachments/${id}`)).status).toBe(401);
  });

  it("ATT-005: a valid link whose image is gone is 404", async () => {
    const gone = crypto.randomUUID();
    const res = await worker().fetch(await sign(gone));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("attachment.not_found");
  });
});
