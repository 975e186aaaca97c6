import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { mintViewTicket, viewTicketKey } from "../../core/sandbox/view-ticket";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";

/**
 * The operator's views of an agent's box, where no container engine runs (the Workers test
 * pool starts none): every answer must still say clearly what is wrong.
 */

const unknownId = "00000000-0000-4000-8000-000000000000";

/** A request to the Worker as a frame would send it: no Authorization header. */
const frame = (path: string, headers: Record<string, string> = {}) =>
  (exports as unknown as { default: Fetcher }).default.fetch(`http://api.test${path}`, { headers, redirect: "manual" });

const ticketFor = async (agentId: string, view: "browser" | "cli", tokenId: string, expiresAt = Date.now() + 60_000) =>
  mintViewTicket(await viewTicketKey(env.SECRETS_KEK), { agentId, view, tokenId, expiresAt });

describe("sandbox views without an engine (SBX-018, SBX-023, UI-011, UI-014)", () => {
  let token: string;
  let guildId: string;
  let tokenId: string;
  beforeAll(async () => {
    ({ token, guildId } = await seedGuild());
    tokenId = (await call("GET", "/api/tokens", { token })).json.data[0].id;
  });

  it("UI-011: an unknown agent is 404 agent.not_found on every view route", async () => {
    for (const [method, path] of [
      ["GET", "sandbox"],
      ["POST", "browser/start"],
      ["POST", "cli/start"],
    ] as const) {
      const res = await call(method, `/api/agents/${unknownId}/${path}`, { token });
      expect(res.status, path).toBe(404);
      expect(res.json.error.code).toBe("agent.not_found");
    }
    expect((await call("GET", "/api/agents/not-a-uuid/sandbox", { token })).status).toBe(404);
  });

  it("OP-UI-9: the Browser view of an agent without browser access is 409 browser.disabled, saying how to turn it on", async () => {
    const agent = await newAgent(token, guildId);
    const res = await call("POST", `/api/agents/${agent.id}/browser/start`, { token });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("browser.disabled");
    expect(res.json.error.message).toMatch(/browser access/);
    const cliOff = await newAgent(token, guildId, { cli: false });
    const cli = await call("POST", `/api/agents/${cliOff.id}/cli/start`, { token });
    expect(cli.status).toBe(409);
    expect(cli.json.error.code).toBe("cli.disabled");
  });

  it("SBX-018: without an engine, starting a view is 503 sandbox.unavailable with the reason, and the state says why", async () => {
    const agent = await newAgent(token, guildId, { browser: true });
    for (const path of ["browser/start", "cli/start"]) {
      const res = await call("POST", `/api/agents/${agent.id}/${path}`, { token });
      expect(res.status, path).toBe(503);
      expect(res.json.error.code).toBe("sandbox.unavailable");
      expect(res.json.error.message.length).toBeGreaterThan(10);
    }
    const state = await call("GET", `/api/agents/${agent.id}/sandbox`, { token });
    expect(state.status).toBe(200);
    expect(state.json).toMatchObject({ box: "standard", status: "unavailable" });
    expect(state.json.reason).toMatch(/\w+/);
    const lite = await newAgent(token, guildId);
    expect((await call("GET", `/api/agents/${lite.id}/sandbox`, { token })).json.box).toBe("lite");
  });

  it("SBX-026: the proxied views open only under a ticket minted for that agent and view", async () => {
    const agent = await newAgent(token, guildId, { browser: true });
    const other = await newAgent(token, guildId, { browser: true });
    const base = `/api/agents/${agent.id}`;
    // A bearer token is not a ticket, nor is a ticket of another agent or view, nor an expired one.
    const refused = [
      frame(`${base}/cli/tty/no-ticket/`, { authorization: `Bearer ${token}` }),
      frame(`${base}/cli/tty/${await ticketFor(other.id, "cli", tokenId)}/`),
      frame(`${base}/cli/tty/${await ticketFor(agent.id, "browser", tokenId)}/`),
      frame(`${base}/browser/vnc/${await ticketFor(agent.id, "cli", tokenId)}/websockify`),
      frame(`${base}/cli/tty/${await ticketFor(agent.id, "cli", tokenId, Date.now() - 1)}/token`),
    ];
    for (const res of await Promise.all(refused)) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("auth.invalid_ticket");
    }
    const ticket = await ticketFor(agent.id, "cli", tokenId);
    const box = await frame(`${base}/cli/tty/${ticket}/`);
    expect(box.status).toBe(503);
    expect(((await box.json()) as { error: { code: string } }).error.code).toBe("sandbox.unavailable");
    const bare = await frame(`${base}/cli/tty/${ticket}`);
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe(`${base}/cli/tty/${ticket}/`);
  });

  it("SBX-026: a ticket opens its view only while the view is on, the minting token is live and the agent exists; the ticket routes renew it without the box", async () => {
    const agent = await newAgent(token, guildId, { browser: true });
    const minted = await call("POST", "/api/tokens", { token, body: { name: "Views" } });
    expect(minted.status).toBe(201);
    const renewed = await call("POST", `/api/agents/${agent.id}/cli/ticket`, { token: minted.json.token });
    expect(renewed.status, JSON.stringify(renewed.json)).toBe(200);
    expect(renewed.headers.get("cache-control")).toBe("no-store");
    const ttyUrl = renewed.json.tty_url as string;
    expect(ttyUrl).toMatch(new RegExp(`^/api/agents/${agent.id}/cli/tty/[^/]+/$`));
    expect(Date.parse(renewed.json.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    // Renewing is not starting: the box was not asked for (no engine here would make it unavailable).
    expect((await call("GET", `/api/agents/${agent.id}/sandbox`, { token })).json.status).toBe("none");
    const browser = await call("POST", `/api/agents/${agent.id}/browser/ticket`, { token });
    expect(browser.json.vnc_url).toMatch(new RegExp(`^/api/agents/${agent.id}/browser/vnc/[^/]+/$`));
    const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;
    // Admitted: the proxy reaches for the box (none runs in this pool).
    expect(await code(await frame(ttyUrl))).toBe("sandbox.unavailable");
    // The setting off closes the view; on again, the same ticket works.
    await call("PATCH", `/api/agents/${agent.id}`, { token, body: { cli: false } });
    const off = await frame(ttyUrl);
    expect(off.status).toBe(403);
    expect(await code(off)).toBe("cli.disabled");
    expect((await call("POST", `/api/agents/${agent.id}/cli/ticket`, { token })).json.error.code).toBe("cli.disabled");
    await call("PATCH", `/api/agents/${agent.id}`, { token, body: { cli: true } });
    expect(await code(await frame(ttyUrl))).toBe("sandbox.unavailable");
    // The token that minted it revoked: 401, though another token's ticket still opens the view.
    expect((await call("DELETE", `/api/tokens/${minted.json.id}`, { token })).status).toBe(204);
    const revoked = await frame(ttyUrl);
    expect(revoked.status).toBe(401);
    expect(await code(revoked)).toBe("auth.token_revoked");
    const other = (await call("POST", `/api/agents/${agent.id}/cli/ticket`, { token })).json.tty_url as string;
    expect(await code(await frame(other))).toBe("sandbox.unavailable");
    // The agent deleted: 404.
    expect((await call("DELETE", `/api/agents/${agent.id}`, { token })).status).toBe(204);
    const gone = await frame(other);
    expect(gone.status).toBe(404);
    expect(await code(gone)).toBe("agent.not_found");
  });

  it("UI-012: the Browser view's page is a sandboxed document framed only by the console, loading noVNC under its own prefix", async () => {
    const agent = await newAgent(token, guildId, { browser: true });
    const res = await frame(`/api/agents/${agent.id}/browser/vnc/${await ticketFor(agent.id, "browser", tokenId)}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toMatch(/^sandbox allow-scripts/);
    expect(csp).not.toContain("allow-same-origin");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const page = await res.text();
    expect(page).toContain('import("./core/rfb.js")');
    expect(page).toContain("scaleViewport = true");
  });
});
