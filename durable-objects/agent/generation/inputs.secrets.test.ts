import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../../bindings/env";
import { openDatabase } from "../../../core/db/client";
import { secrets } from "../../../core/db/schema";
import { SECRET_VALUE_CANARY } from "../../../test/setup/secret-canary";
import { modelRequests, newAgent, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import { openEvents } from "../../../test/workerd/sse";

/** The mock model under another path: a provider other than the platform's, reached with the agent's own key. */
const TENANT = (env as unknown as Env).MODEL_BASE_URL!.replace(/\/v1$/, "/tenant/v1");

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function storeSecret(token: string, name: string, value: string, agentId: string) {
  const created = await call("POST", "/api/secrets", { token, body: { name, value } });
  expect(created.status).toBe(201);
  expect((await call("POST", `/api/secrets/${created.json.id}/grants`, { token, body: { agent_id: agentId } })).status).toBe(201);
  return created.json.id as string;
}

async function updateRow(id: string, change: Partial<typeof secrets.$inferInsert>) {
  const { db, close } = openDatabase(env);
  try {
    await db.update(secrets).set(change).where(eq(secrets.id, id));
  } finally {
    await close();
  }
}

/** Sends one message and waits for the generation; returns the run, its rows and its events. */
async function generate(token: string, agentId: string) {
  const run = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json;
  const { opened, events } = openEvents(token, run.id, (seen) => seen.some((e) => e.event === "status" && e.data.generating === false && e.data.status));
  // The message goes once the stream is open, so the generation's events reach it.
  await opened;
  expect((await call("POST", `/api/runs/${run.id}/messages`, { token, body: { content: "go" } })).status).toBe(202);
  const after = await settled(token, run.id);
  return { run: after, rows: await rows(token, run.id), events: await events };
}

describe("secrets at generation start", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-008 / SEC-001 / SEC-002: the agent's model key is decrypted from its secret and sent only to its provider", async () => {
    const agent = await newAgent(token, guildId, { model_base_url: TENANT, model_api_key_secret: "TENANT_MODEL_KEY" });
    await storeSecret(token, "TENANT_MODEL_KEY", SECRET_VALUE_CANARY, agent.id);
    await script(agent.model, [{ content: "answered with the tenant's key" }]);
    // Responses, SSE frames, rows and log lines are checked for the canary value by the helpers and the teardown.
    const { run, rows: stored } = await generate(token, agent.id);
    expect(run.errors).toEqual([]);
    expect(stored.at(-1)!.payload.content).toBe("answered with the tenant's key");
    const requests = (await modelRequests(agent.model)) as unknown as Array<{ path: string; authorization_sha256: string }>;
    expect(requests.map((r) => [r.path, r.authorization_sha256])).toEqual([["/tenant/v1/chat/completions", await sha256(`Bearer ${SECRET_VALUE_CANARY}`)]]);
  });

  it("SEC-004 / ERR-008: an undecryptable secret fails the generation start before any model call", async () => {
    const agent = await newAgent(token, guildId);
    const id = await storeSecret(token, "TAMPERED_TOKEN", "value-to-be-tampered", agent.id);
    await script(agent.model, [{ content: "must not be asked" }]);
    // A value moved from another row: it no longer verifies against this secret's id.
    const other = await call("POST", "/api/secrets", { token, body: { name: "DONOR_TOKEN", value: "donor-value" } });
    const { db, close } = openDatabase(env);
    const [donor] = await db.select().from(secrets).where(eq(secrets.id, other.json.id));
    await close();
    await updateRow(id, { ciphertext: donor!.ciphertext, iv: donor!.iv });
    const tampered = await generate(token, agent.id);
    expect(tampered.run.errors).toEqual([expect.objectContaining({ code: "secret.undecryptable", operation: "generation.start", generation: 1 })]);
    expect(tampered.run.errors[0].message).toContain("TAMPERED_TOKEN");
    expect(tampered.events.some((e) => e.event === "error" && e.data.code === "secret.undecryptable")).toBe(true);
    // A key version the Worker does not hold fails the same way.
    await updateRow(id, { ciphertext: donor!.ciphertext, iv: donor!.iv, keyVersion: "v0" });
    const unknownKey = await generate(token, agent.id);
    expect(unknownKey.run.errors[0]).toMatchObject({ code: "secret.undecryptable" });
    expect(unknownKey.run.errors[0].message).toContain("key version v0");
    expect(await modelRequests(agent.model)).toEqual([]);
  });

  it("SEC-004: a deleted model key secret is a generation-start error", async () => {
    const agent = await newAgent(token, guildId, { model_base_url: TENANT, model_api_key_secret: "DELETED_MODEL_KEY" });
    const id = await storeSecret(token, "DELETED_MODEL_KEY", "sk-deleted-0000", agent.id);
    expect((await call("DELETE", `/api/secrets/${id}`, { token })).status).toBe(204);
    await script(agent.model, [{ content: "must not be asked" }]);
    const { run } = await generate(token, agent.id);
    expect(run.errors).toEqual([expect.objectContaining({ code: "secret.missing", operation: "generation.start" })]);
    expect(await modelRequests(agent.model)).toEqual([]);
  });

  it("SEC-014 / ERR-004: a secret value in a tool result is redacted before it is stored or streamed", async () => {
    const agent = await newAgent(token, guildId);
    const value = "tok-redact-me-0123456789";
    await storeSecret(token, "NOTE_TOKEN", value, agent.id);
    await script(agent.model, [
      { tool_calls: [toolCall("note_write", { title: "creds", body: `token is ${value}` })] },
      { tool_calls: [toolCall("note_read", { title: "creds" })] },
      { content: "done" },
    ]);
    const { run, rows: stored, events } = await generate(token, agent.id);
    expect(run.errors).toEqual([]);
    const results = stored.filter((r) => r.role === "tool").map((r) => JSON.stringify(r.payload));
    expect(results.at(-1)).toContain("[REDACTED:NOTE_TOKEN]");
    expect(results.join("")).not.toContain(value);
    const streamed = events.filter((e) => e.event === "message" && e.data.role === "tool");
    expect(JSON.stringify(streamed)).not.toContain(value);
  });
});
