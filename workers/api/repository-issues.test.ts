import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { agents } from "../../core/db/schema";
import { newAgent } from "../../test/workerd/agents";
import { call, seedGuild } from "../../test/workerd/seed";
import { withDb } from "../../test/workerd/tasks";

/** A repository's task agent and trigger label (issue 33): what issues of it do to tasks. */

describe("a repository's task agent and trigger label", () => {
  let token: string;
  let guildId: string;
  let coder: string;
  beforeAll(async () => {
    ({ token, guildId } = await seedGuild("Repository issues"));
    coder = (await newAgent(token, guildId, { name: "Builder", coding: true })).id;
  });

  const add = (body: Record<string, unknown>) => call("POST", `/api/guilds/${guildId}/repositories`, { token, body });
  const patch = (id: string, body: unknown, as = token) => call("PATCH", `/api/repositories/${id}`, { token: as, body });
  const fieldsOf = (res: { json: any }) => res.json.error.details.fields.map((f: { field: string }) => f.field);

  it("ISSUE-33: a repository is added without a task agent and with the label agent unless it names them; GET answers them", async () => {
    const plain = await add({ full_name: "issues-org/plain" });
    expect(plain.status).toBe(201);
    expect(plain.json).toMatchObject({ task_agent_id: null, trigger_label: "agent" });
    const set = await add({ full_name: "issues-org/set", task_agent_id: coder, trigger_label: "good first agent" });
    expect(set.status, JSON.stringify(set.json)).toBe(201);
    expect(set.json).toMatchObject({ task_agent_id: coder, trigger_label: "good first agent" });
    const listed = (await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data;
    expect(listed).toEqual(expect.arrayContaining([plain.json, set.json]));
  });

  it("ISSUE-33: PATCH sets the task agent and the trigger label field by field, and clears the agent with null", async () => {
    const repo = (await add({ full_name: "issues-org/patched" })).json;
    const agent = await patch(repo.id, { task_agent_id: coder });
    expect(agent.status).toBe(200);
    expect(agent.json).toEqual({ ...repo, task_agent_id: coder });
    const label = await patch(repo.id, { trigger_label: "Agent: go" });
    expect(label.json).toEqual({ ...repo, task_agent_id: coder, trigger_label: "Agent: go" });
    expect((await patch(repo.id, {})).json).toEqual(label.json);
    expect((await patch(repo.id, { task_agent_id: null })).json).toMatchObject({ task_agent_id: null, trigger_label: "Agent: go" });
    const listed = (await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data;
    expect(listed.find((r: { id: string }) => r.id === repo.id)).toMatchObject({ task_agent_id: null, trigger_label: "Agent: go" });
  });

  it("ISSUE-33: a task agent that is not a coding agent of the guild, or is archived, is 422 naming task_agent_id; a bad label 422 naming trigger_label", async () => {
    const repo = (await add({ full_name: "issues-org/checked" })).json;
    const plain = (await newAgent(token, guildId, { name: "Talker" })).id;
    const archived = (await newAgent(token, guildId, { name: "Gone", coding: true })).id;
    await withDb((db) => db.update(agents).set({ archivedAt: new Date() }).where(eq(agents.id, archived)));
    const other = await seedGuild("Repository issues elsewhere");
    const foreign = (await newAgent(other.token, other.guildId, { coding: true })).id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ task_agent_id: plain }, "task_agent_id"],
      [{ task_agent_id: archived }, "task_agent_id"],
      [{ task_agent_id: foreign }, "task_agent_id"],
      [{ task_agent_id: crypto.randomUUID() }, "task_agent_id"],
      [{ task_agent_id: "not-a-uuid" }, "task_agent_id"],
      [{ trigger_label: "" }, "trigger_label"],
      [{ trigger_label: "x".repeat(51) }, "trigger_label"],
      [{ trigger_label: " agent" }, "trigger_label"],
      [{ trigger_label: "agent " }, "trigger_label"],
      [{ trigger_label: "a,b" }, "trigger_label"],
      [{ trigger_label: 7 }, "trigger_label"],
      [{ full_name: "issues-org/other" }, "full_name"],
    ];
    for (const [body, field] of cases) {
      const res = await patch(repo.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.code).toBe("validation.failed");
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    const refused = await patch(repo.id, { task_agent_id: plain });
    expect(refused.json.error.details.fields).toEqual([{ field: "task_agent_id", message: "no such coding agent in the guild" }]);
    // Adding one checks the same.
    const added = await add({ full_name: "issues-org/added", task_agent_id: foreign });
    expect(added.status).toBe(422);
    expect(fieldsOf(added)).toEqual(["task_agent_id"]);
    expect(fieldsOf(await add({ full_name: "issues-org/added", trigger_label: "a,b" }))).toEqual(["trigger_label"]);
    // Nothing changed.
    expect((await patch(repo.id, {})).json).toEqual(repo);
    expect((await patch(repo.id, { trigger_label: "x".repeat(50) })).status).toBe(200);
  });

  it("ISSUE-33: another organisation's repository is 404 repository.not_found to PATCH, as is an unknown or malformed id", async () => {
    const repo = (await add({ full_name: "issues-org/mine" })).json;
    const stranger = await seedGuild("Repository issues stranger");
    for (const [id, as] of [
      [repo.id, stranger.token],
      [crypto.randomUUID(), token],
      ["nope", token],
    ] as const) {
      const res = await patch(id, { trigger_label: "x" }, as);
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("repository.not_found");
    }
    expect((await call("GET", `/api/guilds/${guildId}/repositories`, { token })).json.data.find((r: { id: string }) => r.id === repo.id)).toEqual(repo);
  });
});
