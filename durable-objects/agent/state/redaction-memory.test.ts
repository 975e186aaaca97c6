import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseKeySet } from "../../../core/secrets/crypto";
import { TEST_SECRETS_KEK } from "../../../test/setup/secret-canary";
import { freshAgent, T0 } from "../../../test/workerd/agent-object";
import type { AgentObject } from "../agent-object";
import { RedactionMemory } from "./redaction-memory";

const HOUR = 3_600_000;

describe("redaction memory (the values of earlier generations)", () => {
  it("REPO-025 / ERR-011: a run's secret values are kept for its diff after the secret is rotated, sealed at rest", async () => {
    const agent = freshAgent();
    const found = await runInDurableObject(agent, async (_i: AgentObject, state) => {
      const memory = new RedactionMemory(
        state.storage.sql,
        () => "agent-1",
        () => parseKeySet(TEST_SECRETS_KEK),
      );
      await memory.generationStarting("run-a", [{ name: "API_KEY", value: "old-value-1234" }], T0);
      // The operator rotated the secret: the next generation uses the new value.
      await memory.generationStarting("run-a", [{ name: "API_KEY", value: "new-value-5678" }], T0 + 1);
      await memory.generationStarting("run-a", [{ name: "API_KEY", value: "new-value-5678" }], T0 + 2);
      await memory.generationStarting("run-b", [{ name: "OTHER", value: "other-run-9999" }], T0 + 3);
      const stored = JSON.stringify(state.storage.sql.exec("SELECT * FROM redaction_values").toArray());
      // A fresh instance (after a restart) reads the same.
      const again = new RedactionMemory(
        state.storage.sql,
        () => "agent-1",
        () => parseKeySet(TEST_SECRETS_KEK),
      );
      return { forA: await again.forRun("run-a", T0 + 4), stored, rows: state.storage.sql.exec("SELECT count(*) AS n FROM redaction_values").one().n };
    });
    expect(found.forA.map((v) => v.value).sort()).toEqual(["new-value-5678", "old-value-1234"]);
    expect(found.rows).toBe(3);
    expect(found.stored).not.toContain("value-");
  });

  it("SEC-018 / ERR-011: a token minted in an earlier generation joins later generations' sets while it is valid, then leaves", async () => {
    const agent = freshAgent();
    const seen = await runInDurableObject(agent, async (_i: AgentObject, state) => {
      const memory = new RedactionMemory(
        state.storage.sql,
        () => "agent-2",
        () => parseKeySet(TEST_SECRETS_KEK),
      );
      await memory.tokensMinted("run-a", [{ name: "GITHUB_INSTALLATION_TOKEN", value: "ghs_first_token_0001" }], T0 + HOUR, T0);
      const later = await memory.generationStarting("run-b", [], T0 + HOUR / 2);
      const diffOfB = await memory.forRun("run-b", T0 + HOUR / 2);
      const expired = await memory.generationStarting("run-b", [], T0 + HOUR + 1);
      return { later, diffOfB, expired };
    });
    expect(seen.later).toEqual([{ name: "GITHUB_INSTALLATION_TOKEN", value: "ghs_first_token_0001" }]);
    expect(seen.diffOfB).toEqual(seen.later);
    expect(seen.expired).toEqual([]);
  });

  it("ERR-011: without a key-encryption key nothing is kept and the generation still starts", async () => {
    const agent = freshAgent();
    const result = await runInDurableObject(agent, async (_i: AgentObject, state) => {
      const memory = new RedactionMemory(
        state.storage.sql,
        () => "agent-3",
        () => parseKeySet(undefined),
      );
      const earlier = await memory.generationStarting("run-a", [{ name: "K", value: "value-0000" }], T0);
      return { earlier, rows: state.storage.sql.exec("SELECT count(*) AS n FROM redaction_values").one().n };
    });
    expect(result).toEqual({ earlier: [], rows: 0 });
  });
});
