import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { newAgent, objectOf, rows, script, settled, toolCall } from "../../../test/workerd/agents";
import { call, seedGuild } from "../../../test/workerd/seed";
import type { AgentObject } from "../agent-object";

/** Records the text of every statement the agent's object sends to Postgres from now on. */
async function recordStatements(agentId: string): Promise<string[]> {
  const texts: string[] = [];
  await runInDurableObject(objectOf(agentId), (object: AgentObject) => {
    const { database } = object.rooms.context;
    const db = database.db.bind(database);
    const wrapped = new WeakSet<object>();
    database.db = () => {
      const current = db();
      const client = (current as unknown as { $client: { query: (config: unknown, ...rest: unknown[]) => unknown } }).$client;
      if (!wrapped.has(client)) {
        wrapped.add(client);
        const query = client.query.bind(client);
        client.query = (config: unknown, ...rest: unknown[]) => {
          texts.push(typeof config === "string" ? config : String((config as { text?: string }).text));
          return query(config, ...rest);
        };
      }
      return current;
    };
  });
  return texts;
}

const answerStatements = (texts: string[]) => texts.filter((t) => /insert into messages/.test(t) && /agent_usage/.test(t));
const runUpdates = (texts: string[]) => texts.filter((t) => /^\s*update "runs"/.test(t));

describe("the answer that ends a generation", () => {
  let token: string;
  let guildId: string;
  beforeAll(async () => ({ token, guildId } = await seedGuild()));

  it("GEN-009 / RUN-002: an answer without tool calls commits with the run's ending, in one statement", async () => {
    const agent = await newAgent(token, guildId);
    const statements = await recordStatements(agent.id);
    await script(agent.model, [{ content: "all done" }]);
    const created = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "hello" } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const run = await settled(token, created.json.id);
    expect(run.status).toBe("active");
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant"]);
    const answers = answerStatements(statements);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(/update "runs" set/);
    // Nothing of the run is written after its answer.
    expect(runUpdates(statements)).toEqual([]);
  });

  it("GEN-009: an answer with tool calls does not end the generation; the last answer carries the ending", async () => {
    const agent = await newAgent(token, guildId);
    const statements = await recordStatements(agent.id);
    await script(agent.model, [{ tool_calls: [toolCall("note_list", {})] }, { content: "listed" }]);
    const created = await call("POST", `/api/agents/${agent.id}/runs`, { token, body: { message: "list notes" } });
    const run = await settled(token, created.json.id);
    expect((await rows(token, run.id)).map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    const answers = answerStatements(statements);
    expect(answers).toHaveLength(2);
    expect(answers[0]).not.toMatch(/update "runs" set/);
    expect(answers[1]).toMatch(/update "runs" set/);
    expect(runUpdates(statements)).toEqual([]);
  });
});
