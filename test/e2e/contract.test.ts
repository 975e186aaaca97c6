import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { attachmentUrlKey, signAttachmentUrl } from "../../core/attachments/signed-url";
import { approveInstall } from "../../scripts/forge/claim";
import { type ApiClient, createApiClient } from "../../web/src/lib/api-client";
import type { Agent, Guild, Run, Schedule } from "../../web/src/lib/api-types";
import { type SseEvent, SseParser } from "../../web/src/lib/sse";
import { script } from "./agents";
import { answerChecker, type OpenApiDocument, operationsOf } from "./openapi-answers";

/**
 * The contract test: every operation of the served OpenAPI document, called through the
 * console's typed client against the running stack, answers a documented success status
 * with a body that validates against the documented schema; each family also answers a
 * documented error (404 for an unknown id, 422 for a bad body), and each event its streams
 * send matches the stream's documented events. An operation the walk leaves out fails the
 * last test, so a new route cannot go unchecked.
 */

let document: OpenApiDocument;
let answers: ReturnType<typeof answerChecker>;
let api: ApiClient;
/** Operations that answered their documented success. */
const succeeded = new Set<string>();

/** The call's body after checking its status and its documented shape. */
async function expectAnswer<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>, status: number): Promise<T> {
  const { data, error, response } = await pending;
  const answer = answers.of(response);
  expect(answer, `${response.url} was not seen by the checker`).toBeDefined();
  expect(answer!.problems, `${answer!.operation} answered ${response.status}`).toEqual([]);
  expect(response.status, `${answer!.operation}: ${JSON.stringify(error)}`).toBe(status);
  if (response.ok) succeeded.add(answer!.operation);
  return data as T;
}

/** Reads a `parseAs: "stream"` event stream until `until` holds (or 15 s pass), then closes it. */
async function readEvents(stream: ReadableStream<Uint8Array> | null | undefined, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  expect(stream).toBeTruthy();
  const reader = stream!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  // A quiet stream blocks the read: closing it ends the wait.
  const timer = setTimeout(() => void reader.cancel(), 15_000);
  try {
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(...parser.feed(value));
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel();
  }
  return events;
}

/** Polls the agent's status (itself a documented operation) until it generates `generating`. */
async function agentGenerating(agentId: string, generating: boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = await expectAnswer(api.GET("/api/agents/{id}/status", { params: { path: { id: agentId } } }), 200);
    if (status.generating === generating) return;
    if (Date.now() > deadline) throw new Error(`agent ${agentId} still ${generating ? "idle" : "generating"} after 20 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A 1x1 transparent PNG: the attachment route checks the image type by its bytes.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

const unknownId = randomUUID();
const model = `mock-contract-${randomUUID().slice(0, 8)}`;
let guild: Guild;
let agent: Agent;
let run: Run;
let schedule: Schedule;

beforeAll(async () => {
  const res = await fetch(`${inject("apiUrl")}/api/openapi.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as OpenApiDocument;
  answers = answerChecker(document);
  api = createApiClient({ baseUrl: inject("apiUrl"), token: () => inject("token"), middleware: [answers.middleware] });
});

describe("API contract: every documented operation through the typed client", () => {
  it("ISSUE-11 contract: health, the document itself, and token refusal", async () => {
    const health = await expectAnswer(api.GET("/api/health"), 200);
    expect(health.database.reachable).toBe(true);
    expect(await expectAnswer(api.GET("/api/openapi.json"), 200)).toEqual(document);
    await expectAnswer(api.GET("/api/guilds", { headers: { authorization: "Bearer gld_not-a-token" } }), 401);
  });

  it("ISSUE-11 contract: guilds", async () => {
    guild = await expectAnswer(api.POST("/api/guilds", { body: { name: "Contract guild" } }), 201);
    const list = await expectAnswer(api.GET("/api/guilds", { params: { query: { limit: 200 } } }), 200);
    expect(list.data.map((g) => g.id)).toContain(guild.id);
    await expectAnswer(api.GET("/api/guilds/{id}", { params: { path: { id: guild.id } } }), 200);
    guild = await expectAnswer(
      api.PATCH("/api/guilds/{id}", { params: { path: { id: guild.id } }, body: { description: "Walked by the contract test" } }),
      200,
    );
    expect(guild.description).toBe("Walked by the contract test");
    await expectAnswer(api.GET("/api/guilds/{id}", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/guilds", { body: { name: "" } }), 422);
  });

  it("ISSUE-11 contract: agents and their memory", async () => {
    agent = await expectAnswer(
      api.POST("/api/guilds/{id}/agents", { params: { path: { id: guild.id } }, body: { name: "Contract agent", model, memory: true } }),
      201,
    );
    const list = await expectAnswer(api.GET("/api/agents", { params: { query: { guild_id: guild.id } } }), 200);
    expect(list.data.map((a) => a.id)).toContain(agent.id);
    await expectAnswer(api.GET("/api/agents/{id}", { params: { path: { id: agent.id } } }), 200);
    agent = await expectAnswer(api.PATCH("/api/agents/{id}", { params: { path: { id: agent.id } }, body: { description: "Contract" } }), 200);
    await agentGenerating(agent.id, false);
    await expectAnswer(api.GET("/api/agents/{id}/memory", { params: { path: { id: agent.id } } }), 200);
    const memory = await expectAnswer(
      api.PUT("/api/agents/{id}/memory", { params: { path: { id: agent.id } }, body: { content: "Remember the contract." } }),
      200,
    );
    expect(memory.content).toBe("Remember the contract.");
    await expectAnswer(api.GET("/api/agents/{id}", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/guilds/{id}/agents", { params: { path: { id: guild.id } }, body: { name: "Bad", max_steps: 0 } }), 422);
  });

  it("ISSUE-11 contract: a direct run, its messages, stream and prompt", async () => {
    run = await expectAnswer(api.POST("/api/agents/{id}/runs", { params: { path: { id: agent.id } }, body: { message: "ping" } }), 201);
    await agentGenerating(agent.id, false);
    const history = await expectAnswer(api.GET("/api/agents/{id}/runs", { params: { path: { id: agent.id }, query: { limit: 25 } } }), 200);
    expect(history.data.map((r) => r.id)).toContain(run.id);
    await expectAnswer(api.GET("/api/runs/{id}", { params: { path: { id: run.id } } }), 200);
    const rows = await expectAnswer(api.GET("/api/runs/{id}/messages", { params: { path: { id: run.id } } }), 200);
    const assistant = rows.data.find((r) => r.role === "assistant");
    expect(assistant).toBeDefined();
    const prompt = await expectAnswer(api.GET("/api/runs/{id}/messages/{seq}/prompt", { params: { path: { id: run.id, seq: assistant!.seq } } }), 200);
    expect(prompt.matches).toBe(true);
    const recorded = { params: { path: { id: run.id, seq: assistant!.seq } } };
    const variants = await expectAnswer(api.POST("/api/runs/{id}/messages/{seq}/variants", { ...recorded, body: { variants: [{ temperature: 0 }] } }), 201);
    expect(variants.data[0]!.status).toBe("completed");
    await expectAnswer(api.GET("/api/runs/{id}/messages/{seq}/variants", recorded), 200);
    await expectAnswer(api.GET("/api/variants/{id}", { params: { path: { id: variants.data[0]!.id } } }), 200);
    await expectAnswer(api.POST("/api/runs/{id}/messages/{seq}/variants", { ...recorded, body: { variants: [] } }), 422);
    const events = await expectAnswer(api.GET("/api/runs/{id}/events", { params: { path: { id: run.id } }, parseAs: "stream" }), 200);
    const seen = await readEvents(events, (e) => e.some((x) => x.event === "message" && x.id === String(assistant!.seq)));
    expect(seen.filter((e) => e.event === "message").map((e) => JSON.parse(e.data).seq)).toContain(assistant!.seq);
    expect(answers.eventProblems("/api/runs/{id}/events", seen)).toEqual([]);
    await expectAnswer(api.POST("/api/runs/{id}/messages", { params: { path: { id: run.id } }, body: { content: "pong" } }), 202);
    await agentGenerating(agent.id, false);
    await expectAnswer(api.GET("/api/runs/{id}", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/runs/{id}/messages", { params: { path: { id: run.id } }, body: { content: "" } }), 422);
  });

  it("ISSUE-11 contract: cancel, archive and unarchive", async () => {
    await script(model, [{ content: "slow", delay_ms: 8_000 }]);
    await expectAnswer(api.POST("/api/runs/{id}/messages", { params: { path: { id: run.id } }, body: { content: "take your time" } }), 202);
    await agentGenerating(agent.id, true);
    run = await expectAnswer(api.POST("/api/runs/{id}/cancel", { params: { path: { id: run.id } } }), 200);
    await agentGenerating(agent.id, false);
    run = await expectAnswer(api.POST("/api/runs/{id}/archive", { params: { path: { id: run.id } } }), 200);
    expect(run.archived).toBe(true);
    run = await expectAnswer(api.POST("/api/runs/{id}/unarchive", { params: { path: { id: run.id } } }), 200);
    expect(run.archived).toBe(false);
    await expectAnswer(api.POST("/api/runs/{id}/cancel", { params: { path: { id: unknownId } } }), 404);
  });

  it("ISSUE-11 contract: the group chat, its stream, and resuming the group run it completed", async () => {
    const posted = await expectAnswer(
      api.POST("/api/guilds/{id}/chat", { params: { path: { id: guild.id } }, body: { content: "Hello @Contract agent", tagged: [agent.id] } }),
      201,
    );
    const chat = await expectAnswer(api.GET("/api/guilds/{id}/chat", { params: { path: { id: guild.id } } }), 200);
    expect(chat.data.map((m) => m.seq)).toContain(posted.seq);
    const events = await expectAnswer(
      api.GET("/api/guilds/{id}/events", { params: { path: { id: guild.id }, query: { after_seq: posted.seq - 1 } }, parseAs: "stream" }),
      200,
    );
    const seen = await readEvents(events, (e) => e.some((x) => x.event === "message" && x.id === String(posted.seq)));
    expect(seen.some((e) => e.event === "message" && JSON.parse(e.data).seq === posted.seq)).toBe(true);
    expect(answers.eventProblems("/api/guilds/{id}/events", seen)).toEqual([]);
    // The post woke the agent into a group run, which completes after its generation.
    const deadline = Date.now() + 20_000;
    let group: Run | undefined;
    while (!group && Date.now() < deadline) {
      const runs = await expectAnswer(api.GET("/api/agents/{id}/runs", { params: { path: { id: agent.id }, query: { limit: 25 } } }), 200);
      group = runs.data.find((r) => r.kind === "group" && r.status === "completed");
      if (!group) await new Promise((r) => setTimeout(r, 200));
    }
    expect(group, "a completed group run").toBeDefined();
    const resumed = await expectAnswer(api.POST("/api/runs/{id}/resume", { params: { path: { id: group!.id } } }), 200);
    expect(resumed.status).toBe("active");
    await expectAnswer(api.GET("/api/guilds/{id}/chat", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/guilds/{id}/chat", { params: { path: { id: guild.id } }, body: { content: "" } }), 422);
  });

  it("ISSUE-11 contract: attachments", async () => {
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "dot.png");
    // Multipart: the FormData is what the documented file field means on the wire.
    const attachment = await expectAnswer(api.POST("/api/attachments", { body: form as never }), 201);
    const image = await expectAnswer(api.GET("/api/attachments/{id}", { params: { path: { id: attachment.id } }, parseAs: "arrayBuffer" }), 200);
    expect(Buffer.from(image).equals(PNG)).toBe(true);
    await expectAnswer(api.GET("/api/attachments/{id}", { params: { path: { id: unknownId } } }), 404);
    // A provider's view: the link signed as the platform signs it (the stack's key), no bearer token.
    const key = await attachmentUrlKey(readFileSync(join(inject("stackStateDir"), "secrets-kek"), "utf8").trim());
    const link = new URL(await signAttachmentUrl(key, { publicUrl: inject("apiUrl"), attachmentId: attachment.id, now: Date.now() }));
    const query = { expires: link.searchParams.get("expires")!, signature: link.searchParams.get("signature")! };
    const signed = await expectAnswer(
      api.GET("/api/attachments/{id}/signed", {
        params: { path: { id: attachment.id }, query: query as never },
        headers: { authorization: "" },
        parseAs: "arrayBuffer",
      }),
      200,
    );
    expect(Buffer.from(signed).equals(PNG)).toBe(true);
    await expectAnswer(
      api.GET("/api/attachments/{id}/signed", { params: { path: { id: attachment.id }, query: { ...query, signature: "forged" } as never } }),
      403,
    );
  });

  it("ISSUE-11 contract: usage and the organisation", async () => {
    const usage = await expectAnswer(api.GET("/api/usage", { params: { query: { scope: "agent", id: agent.id } } }), 200);
    expect(usage.totals.calls).toBeGreaterThan(0);
    const organisation = await expectAnswer(api.GET("/api/organisation"), 200);
    await expectAnswer(
      api.PATCH("/api/organisation", {
        body: { monthly_spend_limit_usd: organisation.monthly_spend_limit_usd === null ? null : Number(organisation.monthly_spend_limit_usd) },
      }),
      200,
    );
    await expectAnswer(api.PATCH("/api/organisation", { body: { monthly_spend_limit_usd: -1 } }), 422);
    await expectAnswer(api.GET("/api/usage", { params: { query: { scope: "agent", id: unknownId } } }), 404);
    const today = new Date().toISOString().slice(0, 10);
    const summary = await expectAnswer(api.GET("/api/usage/summary", { params: { query: { from: today, to: today } } }), 200);
    expect(summary.agents.map((a) => a.id)).toContain(agent.id);
    const daily = await expectAnswer(api.GET("/api/usage/daily", { params: { query: { scope: "agent", id: agent.id, from: today, to: today } } }), 200);
    expect(daily.data.map((d) => d.date)).toEqual([today]);
    await expectAnswer(api.GET("/api/usage/daily", { params: { query: { scope: "agent", id: agent.id, from: today, to: "2000-01-01" } } }), 422);
  });

  it("ISSUE-11 contract: schedules", async () => {
    schedule = await expectAnswer(
      api.POST("/api/agents/{id}/schedules", {
        params: { path: { id: agent.id } },
        body: { description: "Yearly", instruction: "Review the year.", cron: "0 0 1 1 *" },
      }),
      201,
    );
    const list = await expectAnswer(api.GET("/api/agents/{id}/schedules", { params: { path: { id: agent.id } } }), 200);
    expect(list.data.map((s) => s.id)).toContain(schedule.id);
    await expectAnswer(api.GET("/api/schedules/{id}", { params: { path: { id: schedule.id } } }), 200);
    schedule = await expectAnswer(api.PATCH("/api/schedules/{id}", { params: { path: { id: schedule.id } }, body: { description: "Every new year" } }), 200);
    expect((await expectAnswer(api.POST("/api/schedules/{id}/pause", { params: { path: { id: schedule.id } } }), 200)).paused).toBe(true);
    expect((await expectAnswer(api.POST("/api/schedules/{id}/resume", { params: { path: { id: schedule.id } } }), 200)).paused).toBe(false);
    const preview = await expectAnswer(api.GET("/api/schedules/{id}/preview", { params: { path: { id: schedule.id }, query: { count: 2 } } }), 200);
    expect(preview.wake_ups).toHaveLength(2);
    await expectAnswer(api.GET("/api/schedules/{id}/runs", { params: { path: { id: schedule.id } } }), 200);
    await expectAnswer(api.GET("/api/schedules/{id}", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(
      api.POST("/api/agents/{id}/schedules", { params: { path: { id: agent.id } }, body: { description: "Bad", instruction: "x", cron: "not a cron" } }),
      422,
    );
  });

  it("ISSUE-13 contract: scripts, their history, a recipe, and each refusal", async () => {
    const id = agent.id;
    const parameters = { type: "object", properties: { symbol: { type: "string" } }, required: ["symbol"] };
    const written = await expectAnswer(
      api.POST("/api/agents/{id}/scripts", {
        params: { path: { id } },
        body: { name: "fetch_prices", description: "Latest prices", source: "print(1)\n", parameters },
      }),
      201,
    );
    expect(written).toMatchObject({ name: "fetch_prices", version: 1, display_path: "/home/agent/scripts/fetch_prices.py", language: "python", parameters });
    const recipe = await expectAnswer(
      api.POST("/api/agents/{id}/scripts/recipe", {
        params: { path: { id } },
        body: {
          scripts: [
            { name: "fetch_prices", description: "Latest prices", source: "print(2)\n" },
            { name: "add", description: "Adds", source: "print(3)\n" },
          ],
        },
      }),
      201,
    );
    expect(recipe.data.map((s) => [s.name, s.version])).toEqual([
      ["fetch_prices", 2],
      ["add", 1],
    ]);
    const list = await expectAnswer(api.GET("/api/agents/{id}/scripts", { params: { path: { id } } }), 200);
    expect(list.data.map((s) => s.name)).toEqual(["add", "fetch_prices"]);
    const one = await expectAnswer(api.GET("/api/agents/{id}/scripts/{name}", { params: { path: { id, name: "fetch_prices" } } }), 200);
    expect(one.author.kind).toBe("person");
    const history = await expectAnswer(api.GET("/api/agents/{id}/scripts/{name}/history", { params: { path: { id, name: "fetch_prices" } } }), 200);
    expect(history.data.map((v) => v.version)).toEqual([2, 1]);
    await expectAnswer(api.GET("/api/agents/{id}/scripts/{name}", { params: { path: { id, name: "missing" } } }), 404);
    await expectAnswer(api.GET("/api/agents/{id}/scripts", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/agents/{id}/scripts", { params: { path: { id } }, body: { name: "manifest", description: "x", source: "x" } }), 422);
    await expectAnswer(api.DELETE("/api/agents/{id}/scripts/{name}", { params: { path: { id, name: "add" } } }), 204);
    await expectAnswer(api.DELETE("/api/agents/{id}/scripts/{name}", { params: { path: { id, name: "add" } } }), 404);
    await expectAnswer(api.DELETE("/api/agents/{id}/scripts", { params: { path: { id } } }), 204);
    expect((await expectAnswer(api.GET("/api/agents/{id}/scripts", { params: { path: { id } } }), 200)).data).toEqual([]);
  });

  it("ISSUE-11 contract: API tokens", async () => {
    const created = await expectAnswer(api.POST("/api/tokens", { body: { name: "Contract token", expires_in_days: 1 } }), 201);
    const list = await expectAnswer(api.GET("/api/tokens", { params: { query: { limit: 200 } } }), 200);
    expect(list.data.map((t) => t.id)).toContain(created.id);
    await expectAnswer(api.DELETE("/api/tokens/{id}", { params: { path: { id: created.id } } }), 204);
    await expectAnswer(api.DELETE("/api/tokens/{id}", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.POST("/api/tokens", { body: { name: "" } }), 422);
  });

  it("ISSUE-12 contract: secrets and their grants, never a value", async () => {
    const value = `contract-secret-${randomUUID()}`;
    const created = await expectAnswer(api.POST("/api/secrets", { body: { name: "CONTRACT_SECRET", value, description: "Walked" } }), 201);
    const list = await expectAnswer(api.GET("/api/secrets"), 200);
    expect(list.data.map((s) => s.id)).toContain(created.id);
    await expectAnswer(api.GET("/api/secrets/{id}", { params: { path: { id: created.id } } }), 200);
    await expectAnswer(api.PATCH("/api/secrets/{id}", { params: { path: { id: created.id } }, body: { value: `${value}-rotated` } }), 200);
    const granted = await expectAnswer(api.POST("/api/secrets/{id}/grants", { params: { path: { id: created.id } }, body: { agent_id: agent.id } }), 201);
    const revoked = await expectAnswer(
      api.DELETE("/api/secrets/{id}/grants/{grant_id}", { params: { path: { id: created.id, grant_id: granted.grants[0]!.id } } }),
      200,
    );
    expect(revoked.grants).toEqual([]);
    expect(JSON.stringify([created, list, granted, revoked])).not.toContain(value);
    await expectAnswer(api.POST("/api/secrets", { body: { name: "CONTRACT_SECRET", value: "x" } }), 409);
    await expectAnswer(api.POST("/api/secrets", { body: { name: "not-an-env-name", value: "x" } }), 422);
    await expectAnswer(api.DELETE("/api/secrets/{id}", { params: { path: { id: created.id } } }), 204);
    await expectAnswer(api.GET("/api/secrets/{id}", { params: { path: { id: created.id } } }), 404);
  });

  it("ISSUE-12 contract: the sandbox views (needs the container engine and images)", async () => {
    const state = await expectAnswer(api.GET("/api/agents/{id}/sandbox", { params: { path: { id: agent.id } } }), 200);
    expect(state.box).toBe("lite");
    await expectAnswer(api.POST("/api/agents/{id}/browser/start", { params: { path: { id: agent.id } } }), 409);
    const browsing = await expectAnswer(
      api.POST("/api/guilds/{id}/agents", { params: { path: { id: guild.id } }, body: { name: "Contract browser", model, browser: true } }),
      201,
    );
    const browser = await expectAnswer(api.POST("/api/agents/{id}/browser/start", { params: { path: { id: browsing.id } } }), 200);
    expect(browser.vnc_url).toMatch(new RegExp(`^/api/agents/${browsing.id}/browser/vnc/[^/]+/$`));
    const cli = await expectAnswer(api.POST("/api/agents/{id}/cli/start", { params: { path: { id: browsing.id } } }), 200);
    expect(cli.tty_url).toMatch(new RegExp(`^/api/agents/${browsing.id}/cli/tty/[^/]+/$`));
    await expectAnswer(api.POST("/api/agents/{id}/cli/start", { params: { path: { id: unknownId } } }), 404);
    // The open views renew their tickets: the same paths under new tickets.
    const vnc = await expectAnswer(api.POST("/api/agents/{id}/browser/ticket", { params: { path: { id: browsing.id } } }), 200);
    expect(vnc.vnc_url).toMatch(new RegExp(`^/api/agents/${browsing.id}/browser/vnc/[^/]+/$`));
    const tty = await expectAnswer(api.POST("/api/agents/{id}/cli/ticket", { params: { path: { id: browsing.id } } }), 200);
    expect(tty.tty_url).toMatch(new RegExp(`^/api/agents/${browsing.id}/cli/tty/[^/]+/$`));
    await expectAnswer(api.POST("/api/agents/{id}/browser/ticket", { params: { path: { id: agent.id } } }), 409);
    await expectAnswer(api.POST("/api/agents/{id}/cli/ticket", { params: { path: { id: unknownId } } }), 404);
    // Reset home: the running box goes without a save, and the saved home with it.
    const reset = await expectAnswer(api.POST("/api/agents/{id}/sandbox/reset", { params: { path: { id: browsing.id } } }), 200);
    expect(reset).toEqual({ reset: true, destroyed: true });
    await expectAnswer(api.POST("/api/agents/{id}/sandbox/reset", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.DELETE("/api/agents/{id}", { params: { path: { id: browsing.id } } }), 204);
  });

  it("ISSUE-14 contract: a run's changes and one repository's diff (needs the container engine, the images' guilds-code and the end checkpoint)", async () => {
    const plain = await expectAnswer(api.GET("/api/runs/{id}/changes", { params: { path: { id: run.id } } }), 200);
    expect(plain.data).toEqual([]);
    await expectAnswer(api.GET("/api/runs/{id}/changes", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.GET("/api/runs/{id}/changes/{repository}/diff", { params: { path: { id: run.id, repository: "nowhere" } } }), 404);
    const coder = await expectAnswer(
      api.POST("/api/guilds/{id}/agents", { params: { path: { id: guild.id } }, body: { name: "Contract coder", model, coding: true } }),
      201,
    );
    // A repository made in the box, its start checkpoint taken before the edit; the generation's end checkpoints it again.
    const command = [
      "set -e; mkdir -p /home/agent/repos/contract-app; cd /home/agent/repos/contract-app; git init -q -b main",
      "echo one > notes.txt; git add notes.txt; git -c user.name=Contract -c user.email=contract@example.com commit -qm init",
      '/usr/local/bin/guilds-code checkpoint --run "$GUILD_RUN_ID" --kind start > /dev/null; echo two >> notes.txt',
    ].join("; ");
    await script(model, [{ tool_calls: [{ name: "shell", arguments: { command } }] }, { content: "changed" }]);
    const coding = await expectAnswer(api.POST("/api/agents/{id}/runs", { params: { path: { id: coder.id } }, body: { message: "change it" } }), 201);
    await agentGenerating(coder.id, false);
    const changes = await expectAnswer(api.GET("/api/runs/{id}/changes", { params: { path: { id: coding.id } } }), 200);
    expect(changes.data).toMatchObject([{ name: "contract-app", files_changed: 1, insertions: 1, deletions: 0 }]);
    const diff = await expectAnswer(
      api.GET("/api/runs/{id}/changes/{repository}/diff", { params: { path: { id: coding.id, repository: "contract-app" } } }),
      200,
    );
    expect(diff).toMatchObject({ repository: "contract-app", truncated: false });
    expect(diff.diff).toContain("+two");
    await expectAnswer(api.DELETE("/api/agents/{id}", { params: { path: { id: coder.id } } }), 204);
  });

  it("ISSUE-12 contract: a secret request, listed and answered, never a value", async () => {
    await script(model, [{ tool_calls: [{ name: "secret_request", arguments: { name: "CONTRACT_REQUEST", reason: "walked" } }] }, { content: "asked" }]);
    const asking = await expectAnswer(api.POST("/api/agents/{id}/runs", { params: { path: { id: agent.id } }, body: { message: "need a key" } }), 201);
    await agentGenerating(agent.id, false);
    const listed = await expectAnswer(api.GET("/api/runs/{id}/secret-requests", { params: { path: { id: asking.id } } }), 200);
    expect(listed.data.map((r) => [r.name, r.status])).toEqual([["CONTRACT_REQUEST", "pending"]]);
    const value = `contract-request-${randomUUID()}`;
    const answered = await expectAnswer(
      api.POST("/api/runs/{id}/secret-requests/{seq}", { params: { path: { id: asking.id, seq: listed.data[0]!.seq } }, body: { value } }),
      200,
    );
    expect(answered.status).toBe("answered");
    expect(JSON.stringify(answered)).not.toContain(value);
    await expectAnswer(api.POST("/api/runs/{id}/secret-requests/{seq}", { params: { path: { id: asking.id, seq: 0 } }, body: { value } }), 404);
    await expectAnswer(api.GET("/api/runs/{id}/secret-requests", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.DELETE("/api/secrets/{id}", { params: { path: { id: answered.secret_id! } } }), 204);
  });

  it("ISSUE-14 contract: GitHub connections and guild repositories, through the local forge", async () => {
    const forge = async (path: string, body: unknown) =>
      (
        await fetch(`${inject("forgeAdminUrl")}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      ).json();
    const account = `contract-${randomUUID().slice(0, 8)}`;
    await forge("/repos", { full_name: `${account}/app`, private: true });
    expect((await expectAnswer(api.GET("/api/github/connections"), 200)).configured).toBe(true);
    const claim = await expectAnswer(api.POST("/api/github/claims"), 201);
    const approval = await approveInstall(inject("forgeAdminUrl"), { account, repositories: ["app"], state: claim.state });
    const body = { installation_id: approval.installation_id, code: approval.code, state: claim.state };
    const connection = await expectAnswer(api.POST("/api/github/connections", { body }), 201);
    expect(connection.account_login).toBe(account);
    await expectAnswer(api.POST("/api/github/connections", { body }), 409);
    await expectAnswer(api.POST("/api/github/connections", { body: { ...body, state: `${claim.state}x` } }), 422);
    const path = { id: guild.id };
    const repository = await expectAnswer(
      api.POST("/api/guilds/{id}/repositories", { params: { path }, body: { full_name: `${account}/app`, connection_id: connection.id } }),
      201,
    );
    expect((await expectAnswer(api.GET("/api/guilds/{id}/repositories", { params: { path } }), 200)).data.map((r) => r.id)).toEqual([repository.id]);
    await expectAnswer(api.POST("/api/guilds/{id}/repositories", { params: { path }, body: { full_name: "not-a-full-name" } }), 422);
    await expectAnswer(api.GET("/api/guilds/{id}/repositories", { params: { path: { id: unknownId } } }), 404);
    // Issue 33: the repository's task agent and trigger label, the App's webhook and its deliveries.
    const repositoryPath = { params: { path: { id: repository.id } } };
    expect((await expectAnswer(api.PATCH("/api/repositories/{id}", { ...repositoryPath, body: { trigger_label: "bot" } }), 200)).trigger_label).toBe("bot");
    await expectAnswer(api.PATCH("/api/repositories/{id}", { ...repositoryPath, body: { trigger_label: "a,b" } }), 422);
    await expectAnswer(api.PATCH("/api/repositories/{id}", { params: { path: { id: unknownId } }, body: { trigger_label: "bot" } }), 404);
    const { webhook_secret: secret } = JSON.parse(readFileSync(join(inject("stackStateDir"), "forge", "app.json"), "utf8")) as { webhook_secret: string };
    const payload = {
      action: "closed",
      installation: { id: approval.installation_id },
      repository: { full_name: `${account}/app` },
      sender: { login: account, id: 1, type: "User" },
      issue: { number: 1, title: "Done", body: "", html_url: `https://github.com/${account}/app/issues/1`, labels: [] },
    };
    const delivery = (signature: string) => ({
      params: { header: { "X-Hub-Signature-256": signature, "X-GitHub-Event": "issues", "X-GitHub-Delivery": randomUUID() } },
      body: payload as never,
    });
    const signed = `sha256=${createHmac("sha256", secret).update(JSON.stringify(payload)).digest("hex")}`;
    expect(await expectAnswer(api.POST("/api/github/webhooks", delivery(signed)), 200)).toMatchObject({ outcome: "ignored" });
    expect(await expectAnswer(api.POST("/api/github/webhooks", delivery(signed)), 200)).toEqual({ duplicate: true });
    await expectAnswer(api.POST("/api/github/webhooks", delivery(`sha256=${"0".repeat(64)}`)), 401);
    const deliveries = await expectAnswer(api.GET("/api/github/deliveries", { params: { query: { repository: `${account}/app` } } }), 200);
    expect(deliveries.data.map((d) => d.event)).toEqual(["issues"]);
    await expectAnswer(api.GET("/api/github/deliveries", { params: { query: { outcome: "nonsense" as never } } }), 422);
    await expectAnswer(api.DELETE("/api/repositories/{id}", { params: { path: { id: repository.id } } }), 204);
    await expectAnswer(api.DELETE("/api/repositories/{id}", { params: { path: { id: repository.id } } }), 404);
    await expectAnswer(api.DELETE("/api/github/connections/{id}", { params: { path: { id: connection.id } } }), 200);
    await expectAnswer(api.DELETE("/api/github/connections/{id}", { params: { path: { id: unknownId } } }), 404);
  });

  it("ISSUE-22 contract: tasks, their messages, runs, events and settings", async () => {
    const account = `contract-tasks-${randomUUID().slice(0, 8)}`;
    await fetch(`${inject("forgeAdminUrl")}/repos`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ full_name: `${account}/app`, private: true, files: { "README.md": "one\n" } }),
    });
    const claim = await expectAnswer(api.POST("/api/github/claims"), 201);
    const approval = await approveInstall(inject("forgeAdminUrl"), { account, repositories: ["app"], state: claim.state });
    const connection = await expectAnswer(
      api.POST("/api/github/connections", { body: { installation_id: approval.installation_id, code: approval.code, state: claim.state } }),
      201,
    );
    const path = { id: guild.id };
    const repository = await expectAnswer(
      api.POST("/api/guilds/{id}/repositories", { params: { path }, body: { full_name: `${account}/app`, connection_id: connection.id } }),
      201,
    );
    const coder = await expectAnswer(api.POST("/api/guilds/{id}/agents", { params: { path }, body: { name: "Contract coder", model, coding: true } }), 201);

    await expectAnswer(api.GET("/api/organisation/task-settings"), 200);
    const settings = await expectAnswer(api.PATCH("/api/organisation/task-settings", { body: { "runs.keepAliveSeconds": 1 } }), 200);
    expect(settings["runs.keepAliveSeconds"]).toBe(1);
    await expectAnswer(api.PATCH("/api/organisation/task-settings", { body: { "runs.maxConcurrent": 0 } }), 422);

    const body = { title: "Walk the contract", agent_id: coder.id, repository_id: repository.id };
    const task = await expectAnswer(api.POST("/api/guilds/{id}/tasks", { params: { path }, body }), 201);
    await expectAnswer(api.POST("/api/guilds/{id}/tasks", { params: { path }, body: { ...body, title: "" } }), 422);
    expect((await expectAnswer(api.GET("/api/guilds/{id}/tasks", { params: { path } }), 200)).data.map((t) => t.id)).toContain(task.id);
    const taskPath = { params: { path: { id: task.id } } };
    await expectAnswer(api.GET("/api/tasks/{id}", taskPath), 200);
    await expectAnswer(api.GET("/api/tasks/{id}", { params: { path: { id: unknownId } } }), 404);
    expect((await expectAnswer(api.PATCH("/api/tasks/{id}", { ...taskPath, body: { max_cost_usd: 5 } }), 200)).max_cost_usd).toBe(5);
    await expectAnswer(api.PATCH("/api/tasks/{id}", { ...taskPath, body: { max_cost_usd: -1 } }), 422);
    await expectAnswer(api.PATCH("/api/tasks/{id}", { params: { path: { id: unknownId } }, body: { max_cost_usd: 5 } }), 404);
    await expectAnswer(api.POST("/api/tasks/{id}/messages", { ...taskPath, body: { content: "Contract message" } }), 202);
    await expectAnswer(api.POST("/api/tasks/{id}/messages", { ...taskPath, body: { content: "" } }), 422);
    await expectAnswer(api.GET("/api/tasks/{id}/messages", taskPath), 200);
    const stream = await expectAnswer(api.GET("/api/tasks/{id}/events", { ...taskPath, parseAs: "stream" }), 200);
    const taskEvents = await readEvents(stream, (events) => events.some((e) => e.event === "status"));
    expect(taskEvents.map((e) => e.event)).toContain("status");
    expect(answers.eventProblems("/api/tasks/{id}/events", taskEvents)).toEqual([]);
    await expectAnswer(api.POST("/api/tasks/{id}/cancel", taskPath), 200);
    // Once no run of the task is active (the cancelled one has written its ending), its volume may go.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const runs = await expectAnswer(api.GET("/api/tasks/{id}/runs", taskPath), 200);
      if (runs.data.every((r) => r.outcome !== null)) break;
      if (Date.now() > deadline) throw new Error("the cancelled task's run did not end in 120 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    // The run's outcome is written: the reset waits for the object to let go of the run, if it still holds it.
    await expectAnswer(api.POST("/api/tasks/{id}/reset-workspace", taskPath), 200);
    expect((await expectAnswer(api.POST("/api/tasks/{id}/done", taskPath), 200)).status).toBe("completed");
    await expectAnswer(api.POST("/api/tasks/{id}/done", { params: { path: { id: unknownId } } }), 404);
  }, 180_000);

  it("MCP connections contract: presets, create with discovery, read, patch, refresh, grants, delete; never a token", async () => {
    const mcp = inject("mcpServerUrl");
    const presets = await expectAnswer(api.GET("/api/mcp/presets"), 200);
    expect(presets.data.map((p) => p.key)).toContain("local");
    const token = `contract-mcp-token-${randomUUID()}`;
    const created = await expectAnswer(
      api.POST("/api/mcp/connections", { body: { slug: "contract", url: `${mcp}/bearer/mcp`, auth: { kind: "bearer", token } } }),
      201,
    );
    expect(created.status).toBe("error");
    const path = { params: { path: { id: created.id } } };
    const fixed = await expectAnswer(api.PATCH("/api/mcp/connections/{id}", { ...path, body: { token: "mcp-local-bearer-token-0123456789" } }), 200);
    expect(fixed.status).toBe("ready");
    await expectAnswer(api.PATCH("/api/mcp/connections/{id}", { ...path, body: { tools: [{ remote_name: "slow", enabled: false }] } }), 200);
    await expectAnswer(api.POST("/api/mcp/connections/{id}/refresh", path), 200);
    const list = await expectAnswer(api.GET("/api/mcp/connections"), 200);
    expect(list.data.map((c) => c.id)).toContain(created.id);
    const granted = await expectAnswer(api.POST("/api/mcp/connections/{id}/grants", { ...path, body: { agent_id: agent.id } }), 201);
    await expectAnswer(
      api.DELETE("/api/mcp/connections/{id}/grants/{grant_id}", { params: { path: { id: created.id, grant_id: granted.grants[0]!.id } } }),
      200,
    );
    const read = await expectAnswer(api.GET("/api/mcp/connections/{id}", path), 200);
    expect(JSON.stringify(read)).not.toContain(token);
    await expectAnswer(api.POST("/api/mcp/connections", { body: { slug: "contract", url: `${mcp}/mcp` } }), 409);
    await expectAnswer(api.POST("/api/mcp/connections", { body: { slug: "Not A Slug", url: `${mcp}/mcp` } }), 422);
    await expectAnswer(api.DELETE("/api/mcp/connections/{id}", path), 204);
    await expectAnswer(api.GET("/api/mcp/connections/{id}", path), 404);
  });

  it("MCP OAuth contract: authorize gives the server's page, whose redirect's code and state complete it once", async () => {
    const mcp = inject("mcpServerUrl");
    await fetch(`${mcp}/oauth/__settings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ auto_approve: true }) });
    const created = await expectAnswer(
      api.POST("/api/mcp/connections", { body: { slug: "contractoauth", url: `${mcp}/oauth/mcp`, auth: { kind: "oauth" } } }),
      201,
    );
    const path = { params: { path: { id: created.id } } };
    const started = await expectAnswer(api.POST("/api/mcp/connections/{id}/authorize", path), 201);
    const approved = await fetch(started.authorization_url, { redirect: "manual" });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get("location")!);
    const body = { code: back.searchParams.get("code")!, state: back.searchParams.get("state")! };
    const done = await expectAnswer(api.POST("/api/mcp/oauth/callback", { body }), 200);
    expect(JSON.stringify(done)).toContain(created.id);
    await expectAnswer(api.POST("/api/mcp/oauth/callback", { body }), 409);
    await expectAnswer(api.POST("/api/mcp/connections/{id}/authorize", { params: { path: { id: unknownId } } }), 404);
    await expectAnswer(api.DELETE("/api/mcp/connections/{id}", path), 204);
  });

  it("Platform usage contract: the platform's operator reads the whole platform's counters", async () => {
    const usage = await expectAnswer(api.GET("/api/platform/usage"), 200);
    expect(JSON.stringify(usage)).toContain("cost_usd");
  });

  it("ISSUE-11 contract: deletes, each then 404", async () => {
    await expectAnswer(api.DELETE("/api/schedules/{id}", { params: { path: { id: schedule.id } } }), 204);
    await expectAnswer(api.DELETE("/api/agents/{id}", { params: { path: { id: agent.id } } }), 204);
    await expectAnswer(api.GET("/api/agents/{id}", { params: { path: { id: agent.id } } }), 404);
    await expectAnswer(api.DELETE("/api/guilds/{id}", { params: { path: { id: guild.id } } }), 204);
    await expectAnswer(api.DELETE("/api/guilds/{id}", { params: { path: { id: guild.id } } }), 404);
  });

  it("ISSUE-11 contract: the walk covers every operation of the document, each with an operationId", () => {
    const operations = operationsOf(document);
    expect(
      [...operations.keys()].filter((key) => key.includes(" ")),
      "operations without an operationId",
    ).toEqual([]);
    expect([...operations.keys()].filter((key) => !succeeded.has(key)).sort(), "operations not walked to a documented success").toEqual([]);
    expect(
      answers.all().flatMap((a) => a.problems),
      "answers that break the document",
    ).toEqual([]);
  });
});
