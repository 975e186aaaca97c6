import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, objectOf } from "../../test/workerd/agents";
import { recordedRun } from "../../test/workerd/run-changes";

describe("run changes (REPO-021..025, SBX-039)", () => {
  let token: string;
  let agentId: string;
  let guildId: string;
  let runId: string;

  beforeAll(async () => {
    ({ token, guildId, agentId, runId } = await recordedRun());
  });

  it("REPO-023: the agent object refuses the diff of an unrecorded repository or of a run that is not its agent's", async () => {
    const object = objectOf(agentId);
    expect(await object.runDiff(runId, "web")).toMatchObject({ ok: false, status: 404, code: "repository.not_recorded" });
    const stranger = (await newAgent(token, guildId, { coding: true })).id;
    expect(await objectOf(stranger).runDiff(runId, "app")).toMatchObject({ ok: false, status: 404, code: "run.not_found" });
  });
});
