import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

describe("projection and exactness", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("ATT: uploads refuse other types, empty files and foreign ids", async () => {
    const form = new FormData();
    form.append("file", new File(["hello"], "a.txt", { type: "text/plain" }));
    const res = await (exports as unknown as { default: Fetcher }).default.fetch("http://api.test/api/attachments", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(res.status).toBe(415);
    const agent = await newAgent(token, guildId);
    const bad = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "x", attachments: ["00000000-0000-4000-8000-000000000000"] } });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields[0].field).toBe("attachments.0");
  });
});
