import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api } from "../e2e/http";
import { type Chromium, type Locator, type Page, screenshot, signedInPage, until } from "./browser";

/** A 1x1 PNG. */
const DOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** What the page-side callbacks below are handed (they run in the page; this file is checked without the DOM's types). */
type Files = Array<{ name: string; type: string; base64?: string; bytes?: number }>;

/**
 * Drops files on the composer as a user dragging them from the desktop would: dragenter,
 * dragover and drop carrying a DataTransfer of Files.
 */
async function dropFiles(target: Locator, files: Files) {
  await target.evaluate((el: any, specs: Files) => {
    const data = new (globalThis as any).DataTransfer();
    for (const f of specs) {
      const bytes = f.base64 ? Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)) : new Uint8Array(f.bytes ?? 0);
      data.items.add(new (globalThis as any).File([bytes], f.name, { type: f.type }));
    }
    for (const type of ["dragenter", "dragover", "drop"]) {
      el.dispatchEvent(new (globalThis as any).DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, files);
}

/** Pastes files into the element as a clipboard holding an image (a screenshot tool's copy) would. */
async function pasteFiles(target: Locator, files: Files) {
  await target.evaluate((el: any, specs: Files) => {
    const data = new (globalThis as any).DataTransfer();
    for (const f of specs) data.items.add(new (globalThis as any).File([Uint8Array.from(atob(f.base64!), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    el.dispatchEvent(new (globalThis as any).ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, files);
}

/** The image's natural width once it has loaded (0 until then, or for a broken image). */
const naturalWidth = (image: Locator) => image.evaluate((img: any) => (img.complete ? Number(img.naturalWidth) : 0));

describe("console: images in the composer and the transcript", () => {
  let chromium: Chromium;
  let page: Page;
  const apiUrl = inject("apiUrl");

  async function newRun(name: string) {
    const model = `mock-model-${Math.random().toString(36).slice(2, 10)}`;
    const guild = (await api("POST", "/api/guilds", { body: { name: `Images ${name}` } })).json;
    const agent = (await api("POST", `/api/guilds/${guild.id}/agents`, { body: { name, model } })).json;
    return (await api("POST", `/api/agents/${agent.id}/runs`, { body: {} })).json as { id: string };
  }

  /** Every request the page makes for an attachment's bytes, with the authorization it sent. */
  const fetched: Array<{ url: string; authorization: string | undefined }> = [];

  beforeAll(async () => {
    ({ chromium, page } = await signedInPage(apiUrl, inject("token")));
    page.on("request", (request) => {
      if (/\/api\/attachments\/[0-9a-f-]{36}$/.test(request.url())) fetched.push({ url: request.url(), authorization: request.headers().authorization });
    });
  });
  afterAll(async () => {
    await chromium?.close();
  });

  /** Opens the image behind a thumbnail, checks the enlarged view, and closes it the given way. */
  async function enlargeAndClose(thumb: Locator, name: string, close: "Escape" | "click") {
    await thumb.click();
    const dialog = page.getByRole("dialog", { name });
    await dialog.waitFor();
    const large = dialog.getByRole("img", { name });
    await until(async () => (await naturalWidth(large)) > 0, `the enlarged ${name} loads`);
    const shown = (await large.boundingBox())!;
    const small = (await thumb.locator("img").boundingBox())!;
    expect(shown.width).toBeGreaterThanOrEqual(small.width);
    if (close === "Escape") await page.keyboard.press("Escape");
    else await large.click();
    await dialog.waitFor({ state: "detached" });
  }

  it("UI-009: images dropped on the composer and pasted into it attach with previews; a wrong type and an oversized file are named with the reason; sent, they show in the transcript", async () => {
    const run = await newRun("Looker");
    await page.goto(`${apiUrl}/runs/${run.id}`);
    const composer = page.getByRole("form", { name: "Send a message" });
    const box = page.getByLabel("Message", { exact: true });
    await box.waitFor();
    const chips = page.getByTestId("attachment");

    await dropFiles(composer, [{ name: "dropped.png", type: "image/png", base64: DOT }]);
    const dropped = chips.filter({ hasText: "dropped.png" });
    await dropped.and(page.locator("[data-state=ready]")).waitFor();
    await until(async () => (await naturalWidth(dropped.getByRole("img", { name: "Preview of dropped.png" }))) === 1, "the drop's preview shows");

    await box.fill("Two images");
    await pasteFiles(box, [{ name: "pasted.png", type: "image/png", base64: DOT }]);
    const pasted = chips.filter({ hasText: "pasted.png" });
    await pasted.and(page.locator("[data-state=ready]")).waitFor();
    expect(await pasted.getByRole("img", { name: "Preview of pasted.png" }).count()).toBe(1);
    // An image alone on the clipboard adds nothing to the text.
    expect(await box.inputValue()).toBe("Two images");

    const uploads = fetched.length;
    await dropFiles(composer, [
      { name: "notes.txt", type: "text/plain", base64: btoa("just text") },
      { name: "huge.png", type: "image/png", bytes: 11 * 1024 * 1024 },
    ]);
    const wrongType = chips.filter({ hasText: "notes.txt" }).and(page.locator("[data-state=failed]"));
    await wrongType.waitFor();
    expect(await wrongType.textContent()).toContain("notes.txt not attached: not a PNG, JPEG, GIF or WebP image (text/plain)");
    const tooLarge = chips.filter({ hasText: "huge.png" }).and(page.locator("[data-state=failed]"));
    expect(await tooLarge.textContent()).toContain("huge.png not attached: larger than 10 MiB (11.0 MiB)");
    expect(await page.getByRole("alert").filter({ hasText: "not attached" }).count()).toBe(2);
    expect(fetched.length).toBe(uploads);
    await screenshot(page, "43-composer-drop-paste");
    await page.getByRole("button", { name: "Remove notes.txt" }).click();
    await page.getByRole("button", { name: "Remove huge.png" }).click();
    await wrongType.waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Send" }).click();
    const sent = page.locator("li[data-role=user]", { hasText: "Two images" });
    await sent.waitFor();
    expect(await sent.getByTestId("row-attachments").textContent()).toBe("Attachments: dropped.png, pasted.png");
    const thumbs = sent.getByRole("list", { name: /^Images of message/ }).getByRole("button");
    await until(async () => (await thumbs.count()) === 2, "both thumbnails show");
    await until(async () => (await naturalWidth(sent.getByRole("img", { name: "pasted.png" }))) === 1, "the sent image loads from the API");
    await chips.first().waitFor({ state: "detached" });
    // Fetched with the operator's token, as every call of the console is.
    const rows = (await api("GET", `/api/runs/${run.id}/messages`)).json.data as Array<{ role: string; metadata: { attachments?: Array<{ id: string }> } }>;
    const ids = rows.find((r) => r.role === "user")!.metadata.attachments!.map((a) => a.id);
    for (const id of ids) expect(fetched.find((f) => f.url.endsWith(id))?.authorization).toBe(`Bearer ${inject("token")}`);
    await enlargeAndClose(thumbs.filter({ has: page.getByRole("img", { name: "dropped.png" }) }), "dropped.png", "Escape");
  });

  it("UI-009: a browser tool's screenshot shows in its tool row as a thumbnail that opens large and closes with Escape or a click", async () => {
    const run = await newRun("Browser");
    // A real screenshot of the console, stored as the agent loop stores a tool's image:
    // an attachment of the organisation, referenced from the tool row's metadata.attachments.
    await page.goto(`${apiUrl}/runs/${run.id}`);
    await page.getByLabel("Message", { exact: true }).waitFor();
    const png = await page.screenshot();
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "browser_screenshot-call_shot.png");
    const upload = await fetch(`${apiUrl}/api/attachments`, { method: "POST", headers: { authorization: `Bearer ${inject("token")}` }, body: form });
    expect(upload.status).toBe(201);
    const image = (await upload.json()) as { id: string; filename: string; mime: string; kind: string };
    const db = new pg.Client({ connectionString: inject("stackDatabaseUrl") });
    await db.connect();
    try {
      const call = { id: "call_shot", type: "function", function: { name: "browser_screenshot", arguments: "{}" } };
      const rows = [
        ["user", { role: "user", content: "Show me the page" }, { source: "operator" }],
        ["assistant", { role: "assistant", content: "", tool_calls: [call] }, { usage: { prompt_tokens: 10, completion_tokens: 5 } }],
        [
          "tool",
          { role: "tool", tool_call_id: call.id, content: "browser_screenshot done." },
          {
            tool_name: "browser_screenshot",
            tool_call_id: call.id,
            duration_ms: 120,
            attachments: [{ id: image.id, filename: image.filename, mime: image.mime, kind: image.kind }],
          },
        ],
      ] as const;
      for (const [role, payload, metadata] of rows) {
        await db.query(
          `insert into messages (run_id, seq, generation, role, payload, metadata)
           values ($1, (select coalesce(max(seq), -1) + 1 from messages where run_id = $1), 1, $2, $3, $4)`,
          [run.id, role, JSON.stringify(payload), JSON.stringify(metadata)],
        );
      }
    } finally {
      await db.end();
    }

    await page.reload();
    const toolRow = page.locator("li[data-role=tool]", { hasText: "Result of browser_screenshot" });
    await toolRow.waitFor();
    const thumb = toolRow.getByRole("list", { name: "Screenshots of browser_screenshot" }).getByRole("button", { name: `Enlarge ${image.filename}` });
    await thumb.waitFor();
    await until(async () => (await naturalWidth(thumb.getByRole("img", { name: image.filename }))) === 1280, "the screenshot's thumbnail loads");
    expect(fetched.find((f) => f.url.endsWith(image.id))?.authorization).toBe(`Bearer ${inject("token")}`);
    await screenshot(page, "44-tool-screenshot-thumb");

    await thumb.click();
    await page.getByRole("dialog", { name: image.filename }).waitFor();
    await screenshot(page, "45-tool-screenshot-large");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await enlargeAndClose(thumb, image.filename, "click");
    await enlargeAndClose(thumb, image.filename, "Escape");
    // Focus is back on the page: the thumbnail opens again.
    expect(await page.getByRole("dialog").count()).toBe(0);
  });
});
