import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { agentIdle, script, transcript } from "./agents";
import { api } from "./http";
import { boxesWithVariable, removeSeenBoxes, until } from "./sandbox-box";

/**
 * The browser tools on a real standard box, through the whole stack: the mock model asks for
 * browser_* calls, the agent object ensures the box, and the box's Chromium loads pages this
 * test serves on the engine's bridge. NEEDS the container engine and the sandbox images.
 */

let server: Server;
/** The test's pages as the box reaches them (the bridge's gateway is this machine). */
let origin: string;
const cookie = `c${crypto.randomUUID().replace(/-/g, "")}`;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    if (req.url === "/set") {
      // A persistent cookie: Chromium keeps it in the profile under /home/agent/.browser.
      res.setHeader("set-cookie", `sbx=${cookie}; Max-Age=86400; Path=/`);
      return res.end("<title>Set</title><h1>cookie set</h1>");
    }
    if (req.url === "/show") return res.end(`<title>Show</title><h1>cookie is ${/sbx=(\w+)/.exec(req.headers.cookie ?? "")?.[1] ?? "missing"}</h1>`);
    res.end('<title>Fixture page</title><h1>Quarterly figures</h1><button type="button">Reveal</button>');
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  const gateway = execFileSync("docker", ["network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}"], { encoding: "utf8" }).trim();
  origin = `http://${gateway}:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  removeSeenBoxes();
});

/** A browser agent with a secret of its own (its name tells the agent's box apart). */
async function browserAgent() {
  const guild = await api("POST", "/api/guilds", { body: { name: "Browsing" } });
  const model = `browse-${crypto.randomUUID().slice(0, 8)}`;
  const agent = await api("POST", `/api/guilds/${guild.json.id}/agents`, { body: { name: "Browser", model, browser: true } });
  expect(agent.status, agent.text).toBe(201);
  const secretName = `BRW_${crypto.randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`;
  const secret = await api("POST", "/api/secrets", { body: { name: secretName, value: `v-${crypto.randomUUID()}` } });
  expect(secret.status, secret.text).toBe(201);
  expect((await api("POST", `/api/secrets/${secret.json.id}/grants`, { body: { agent_id: agent.json.id } })).status).toBe(201);
  return { agentId: agent.json.id as string, model, secretName, secretId: secret.json.id as string };
}

/** One generation making these tool calls in turn; → each tool result's text. */
async function browse(agent: { agentId: string; model: string }, calls: Array<{ name: string; arguments: Record<string, unknown> }>) {
  await script(agent.model, [...calls.map((call) => ({ tool_calls: [call] })), { content: "done" }]);
  const run = await api("POST", `/api/agents/${agent.agentId}/runs`, { body: { message: "browse" } });
  expect(run.status, run.text).toBe(201);
  await agentIdle(agent.agentId, {}, 120_000);
  return (await transcript(run.json.id)).filter((r) => r.role === "tool").map((r) => String(r.payload.content));
}

describe("browser tools on a real standard box", () => {
  it("SBX-019 / OP-EXACT-2: browser_navigate and browser_snapshot read a page the test serves; the screenshot reaches the model as an image", async () => {
    const agent = await browserAgent();
    const [navigated, snapshot, screenshot] = await browse(agent, [
      { name: "browser_navigate", arguments: { url: `${origin}/` } },
      { name: "browser_snapshot", arguments: {} },
      { name: "browser_screenshot", arguments: {} },
    ]);
    expect(navigated).toContain("Fixture page");
    expect(snapshot).toContain("Quarterly figures");
    expect(snapshot).toMatch(/button "Reveal"/);
    expect(screenshot).not.toMatch(/^ERROR/);
    // The model's next request carries the screenshot as a PNG image (after the tool results).
    const requests = (await (await fetch(`${inject("mockModelUrl")}/__requests?model=${agent.model}`)).json()) as {
      requests: Array<{ body: { messages: unknown[] } }>;
    };
    const last = JSON.stringify(requests.requests.at(-1)!.body.messages);
    expect(last).toContain("data:image/png;base64,");
  }, 180_000);

  it("SBX-036 / SBX-007: a browser cookie survives the box's recreation in /home/agent/.browser", async () => {
    const agent = await browserAgent();
    const [set] = await browse(agent, [{ name: "browser_navigate", arguments: { url: `${origin}/set` } }]);
    expect(set).toContain("cookie set");
    const [box] = boxesWithVariable(agent.secretName);
    expect(box).toBeDefined();
    // A secret change saves the idle box's home and destroys the box (SEC-009).
    expect((await api("PATCH", `/api/secrets/${agent.secretId}`, { body: { description: "rotated" } })).status).toBe(200);
    await until("the box to be destroyed", () => boxesWithVariable(agent.secretName).length === 0, 60_000);
    const [shown] = await browse(agent, [{ name: "browser_navigate", arguments: { url: `${origin}/show` } }]);
    expect(shown).toContain(`cookie is ${cookie}`);
    expect(boxesWithVariable(agent.secretName)).not.toContain(box);
  }, 240_000);
});
