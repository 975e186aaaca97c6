import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

async function upload(token: string): Promise<string> {
  const form = new FormData();
  form.append("file", new File([Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0))], "dot.png", { type: "image/png" }));
  const res = await (exports as unknown as { default: Fetcher }).default.fetch("http://api.test/api/attachments", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe("images at request time", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("ATT-007 / ATT-008: every provider request of a Kimi model gets the image as a data URL, hydrated again for each request; the stored row keeps the reference", async () => {
    const agent = await newAgent(token, guildId, { model: `kimi-k2-${crypto.randomUUID().slice(0, 8)}` });
    const model = (await call("GET", `/api/agents/${agent.id}`, { token })).json.model as string;
    await script(model, [{ tool_calls: [toolCall("note_list", {})] }, { content: "a dot" }]);
    const run = (await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "what is this?", attachments: [await upload(token)] } })).json;
    await settled(token, run.id);

    const requests = await modelRequests(model);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.body.messages[1].content).toEqual([
        { type: "text", text: "what is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
    }
    const stored = (await rows(token, run.id))[1]!;
    expect(stored.payload).toEqual({ role: "user", content: "what is this?" });
    expect(JSON.stringify(stored)).not.toContain("base64");
  });
});
