import { describe, expect, it } from "vitest";
import type { AnyDatabase } from "../db/client";
import { writeAgentSecret } from "./agent-secret";
import { parseKeySet } from "./crypto";

const KEK = btoa(String.fromCharCode(...new Uint8Array(32).fill(5)));

describe("writing an agent's secret", () => {
  it("OP-SEC-3: a reserved name (a secret_request older than the rule may carry one) is refused before the database is touched", async () => {
    const untouched = new Proxy({} as AnyDatabase, {
      get: () => {
        throw new Error("the database was used");
      },
    });
    const input = { organisationId: "org", agentId: "agent", name: "GUEST_HOME", description: "", value: "/tmp/elsewhere" };
    const outcome = await writeAgentSecret(untouched, await parseKeySet(KEK), input, true);
    expect(outcome).toEqual({ ok: false, code: "secret.name_reserved", message: expect.stringContaining("GUEST_HOME is reserved") });
    expect(JSON.stringify(outcome)).not.toContain("/tmp/elsewhere");
  });
});
