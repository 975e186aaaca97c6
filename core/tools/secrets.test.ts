import { describe, expect, it } from "vitest";
import { MemoryNotesRecordsStore } from "./memory-store";
import { runTool } from "./registry";
import { REDACTED_ARGUMENT, SECRET_REQUEST_TOOLS, SECRET_STORE_TOOLS, storedToolCalls } from "./secrets";
import type { ToolContext } from "./types";

const VALUE = "sk_live_canary-4b1d";
const call = (name: string, args: string) => ({ id: "call_1", type: "function" as const, function: { name, arguments: args } });

const ctx = (stored: unknown[] = []): ToolContext => ({
  agentId: "agent-1",
  runId: "run-1",
  toolCallId: "call-1",
  now: () => new Date("2026-01-01T00:00:00Z"),
  store: new MemoryNotesRecordsStore(() => new Date("2026-01-01T00:00:00Z")),
  secrets: {
    async store(input) {
      stored.push(input);
      return { created: stored.length === 1 };
    },
  },
});

describe("secret tools (SEC-011, SEC-012, OP-SEC-5, OP-SEC-6, OP-SEC-8)", () => {
  it("OP-SEC-8: a secret_store call is stored with its value replaced by [redacted], and the value joins the redaction set", () => {
    const other = call("note_write", JSON.stringify({ title: "t", body: VALUE }));
    const { calls, values } = storedToolCalls([call("secret_store", JSON.stringify({ name: "SHOP_KEY", description: "shop", value: VALUE })), other]);
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ name: "SHOP_KEY", description: "shop", value: REDACTED_ARGUMENT });
    expect(calls[0]!.id).toBe("call_1");
    expect(calls[1]).toBe(other);
    expect(values).toEqual([{ name: "SHOP_KEY", value: VALUE }]);
  });

  it("OP-SEC-8: arguments that are not a JSON object are replaced whole, since they may hold the value", () => {
    const { calls, values } = storedToolCalls([call("secret_store", `{"name":"K","value":"${VALUE}"`)]);
    expect(calls[0]!.function.arguments).not.toContain(VALUE);
    expect(values.map((v) => v.value).join()).toContain(VALUE);
    expect(storedToolCalls([call("secret_store", "")]).values).toEqual([]);
  });

  it("SEC-011 / OP-SEC-6: secret_store stores through the context and says the value reaches the next generation", async () => {
    const stored: unknown[] = [];
    const result = await runTool(SECRET_STORE_TOOLS, "secret_store", JSON.stringify({ name: "SHOP_KEY", value: VALUE }), ctx(stored));
    expect(stored).toEqual([{ name: "SHOP_KEY", description: "", value: VALUE }]);
    expect(result.content).toMatch(/^Stored secret SHOP_KEY \(created\)/);
    expect(result.content).toContain("next generation");
    expect(result.content).not.toContain(VALUE);
    const refused = await runTool(SECRET_STORE_TOOLS, "secret_store", JSON.stringify({ name: "PATH", value: VALUE }), ctx());
    expect(refused.content).toMatch(/^ERROR: invalid arguments: name: is reserved/);
    expect(refused.content).not.toContain(VALUE);
  });

  it("OP-SEC-3: secret_store refuses every name that would reconfigure the box, and stores nothing", async () => {
    const stored: unknown[] = [];
    for (const name of ["GUEST_HOME", "GUEST_MAX_ARCHIVE_BYTES", "LD_PRELOAD", "NODE_OPTIONS", "BASH_ENV", "PYTHONPATH"]) {
      const refused = await runTool(SECRET_STORE_TOOLS, "secret_store", JSON.stringify({ name, value: VALUE }), ctx(stored));
      expect(refused.content, name).toMatch(/^ERROR: invalid arguments: name: is reserved/);
      expect(refused.content).not.toContain(VALUE);
    }
    const request = await runTool(SECRET_REQUEST_TOOLS, "secret_request", JSON.stringify({ name: "GUEST_TOKEN", reason: "x" }), ctx());
    expect(request.content).toMatch(/^ERROR: invalid arguments: name: is reserved/);
    expect(stored).toEqual([]);
  });

  it("OP-SEC-5: secret_request returns at once with requested, and its row's metadata holds what the operator is asked", async () => {
    const result = await runTool(SECRET_REQUEST_TOOLS, "secret_request", JSON.stringify({ name: "GITHUB_TOKEN", reason: "to push the branch" }), ctx());
    expect(result.content).toMatch(/^requested: /);
    expect(result.metadata).toEqual({ secret_request: { name: "GITHUB_TOKEN", description: "", reason: "to push the branch" } });
    const bad = await runTool(SECRET_REQUEST_TOOLS, "secret_request", JSON.stringify({ name: "github-token", reason: "x" }), ctx());
    expect(bad.content).toMatch(/^ERROR: invalid arguments: name/);
  });
});
