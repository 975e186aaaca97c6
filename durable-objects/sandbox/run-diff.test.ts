import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, objectOf } from "../../test/workerd/agents";
import { change, recordRepos } from "../../test/workerd/run-changes";
import { call, seedGuild } from "../../test/workerd/seed";

describe("run changes (REPO-021..025, SBX-039)", () => {
  let token: string;
  let guildId: string;
  let agentId: string;
  let runId: string;
  const repos = [change("app"), change("docs", { branch: null, files_changed: 1, insertions: 0, deletions: 4 })];

  beforeAll(async () => {
    ({ token, guildId } = await seedGuild());
    agentId = (await newAgent(token, guildId, { coding: true })).id;
    runId = (await call("POST", `/api/agents/${agentId}/runs`, { token, body: {} })).json.id;
    await recordRepos(runId, repos);
  });

  it("REPO-023: the agent object refuses the diff of an unrecorded repository or of a run that is not its agent's", async () => {
    const object = objectOf(agentId);
    expect(await object.runDiff(runId, "web")).toMatchObject({ ok: false, status: 404, code: "repository.not_recorded" });
    const stranger = (await newAgent(token, guildId, { coding: true })).id;
    expect(await objectOf(stranger).runDiff(runId, "app")).toMatchObject({ ok: false, status: 404, code: "run.not_found" });
  });
});
