import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedOrganisation } from "../../test/workerd/seed";

const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const MiB = 1024 * 1024;

const worker = () => (exports as unknown as { default: Fetcher }).default;

async function upload(token: string, file: File) {
  const form = new FormData();
  form.append("file", file);
  const res = await worker().fetch("http://api.test/api/attachments", { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, json: (await res.json()) as any };
}

describe("HARDEN-5: uploads", () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await seedOrganisation("Uploads"));
  });

  it("OP-ATT-2 / HARDEN-5: the type is read from the bytes: a mismatch is 422 naming the file", async () => {
    const renamed = await upload(token, new File([PNG], "photo.jpg", { type: "image/jpeg" }));
    expect(renamed.status).toBe(422);
    expect(renamed.json.error.code).toBe("attachment.type_mismatch");
    expect(renamed.json.error.message).toContain("photo.jpg");
    expect(renamed.json.error.details).toMatchObject({ filename: "photo.jpg", declared_type: "image/jpeg", detected_type: "image/png" });

    const disguised = await upload(token, new File(["<html><script>alert(1)</script>"], "cat.png", { type: "image/png" }));
    expect(disguised.status).toBe(422);
    expect(disguised.json.error.message).toContain("cat.png");
    expect(disguised.json.error.details.detected_type).toBeNull();

    const svg = await upload(token, new File(["<svg xmlns='http://www.w3.org/2000/svg'/>"], "logo.svg", { type: "image/svg+xml" }));
    expect(svg.status).toBe(415);
  });

  it("OP-ATT-5 / HARDEN-5: a download carries its type, nosniff and a Content-Disposition naming the file; another organisation gets 404", async () => {
    const created = await upload(token, new File([PNG], "plan ü.png", { type: "image/png" }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ filename: "plan ü.png", mime: "image/png", size: PNG.byteLength });
    const res = await worker().fetch(`http://api.test/api/attachments/${created.json.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="plan _.png"; filename*=UTF-8''plan%20%C3%BC.png`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
    // Another organisation cannot read it.
    const other = await seedOrganisation("Not the uploader");
    expect((await call("GET", `/api/attachments/${created.json.id}`, { token: other.token })).status).toBe(404);
  });

  it("OP-ATT-2 / HARDEN-5: a chunked 20 MB upload is refused with 413 once the limit is crossed, not after reading it all", async () => {
    const boundary = "----hardening";
    const head = new TextEncoder().encode(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="huge.png"\r\ncontent-type: image/png\r\n\r\n`,
    );
    const chunk = new Uint8Array(64 * 1024);
    chunk.set(PNG.subarray(0, 8));
    const total = 20 * MiB;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent === 0) controller.enqueue(head);
          if (sent >= total) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk.slice());
        },
      },
      { highWaterMark: 0 },
    );
    // No content-length: the size is only known by counting.
    const res = await worker().fetch("http://api.test/api/attachments", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("request.too_large");
    expect(sent).toBeGreaterThan(10 * MiB);
    expect(sent).toBeLessThan(12 * MiB);
  }, 60_000);
});
