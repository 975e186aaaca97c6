import { describe, expect, it } from "vitest";
import { claimInstallation } from "../../../scripts/forge/test-support";
import { agentIdle, readRun, script, transcript } from "../agents";
import { agentWithSecret, generate } from "../container-stack";
import { type Boxes, forgeAdmin } from "./tenant";

/** Occurrences of `value` in `text`: the canary must appear 0 times. */
const count = (text: string, value: string) => text.split(value).length - 1;

/** Reads the run's event stream raw, from before `start` until the generation it starts ended. */
async function eventsUntilIdle(boxes: Boxes, runId: string, start: () => Promise<void>) {
  const controller = new AbortController();
  const res = await fetch(`${boxes.target.base}/api/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${boxes.target.token}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  await start();
  let raw = "";
  const events: Array<{ event: string; data: any }> = [];
  const deadline = Date.now() + 180_000;
  // The final reply (no tool calls) and, after it, the status saying the generation ended.
  const ended = () => {
    const reply = events.findIndex((e) => e.event === "message" && e.data.payload?.role === "assistant" && !e.data.payload.tool_calls);
    return reply >= 0 && events.slice(reply).some((e) => e.event === "status" && e.data.generating === false);
  };
  try {
    while (!ended() && Date.now() < deadline) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += value;
      events.length = 0;
      for (const frame of raw.split("\n\n").slice(0, -1)) {
        const fields = Object.fromEntries(
          frame
            .split("\n")
            .filter((l) => !l.startsWith(":") && l.includes(": "))
            .map((l) => [l.slice(0, l.indexOf(": ")), l.slice(l.indexOf(": ") + 2)]),
        );
        if (fields.data) events.push({ event: fields.event ?? "message", data: JSON.parse(fields.data) });
      }
    }
  } finally {
    controller.abort();
  }
  return { raw, events };
}

/** A private repository on the forge reached by the agent's guild through a connection. */
async function withRepository(boxes: Boxes, guildId: string) {
  const forge = forgeAdmin(boxes);
  const owner = `redact-${crypto.randomUUID().slice(0, 8)}`;
  const fullName = `${owner}/app`;
  expect((await forge("POST", "/repos", { full_name: fullName, private: true, files: { "README.md": "one\n" } })).status).toBe(201);
  const installation = await forge("POST", "/installations", { account: owner, repositories: [fullName] });
  expect(installation.status, JSON.stringify(installation.json)).toBe(201);
  const { connection } = await claimInstallation(boxes.call, boxes.stack.forge!.adminUrl, { account: owner });
  expect(connection.status, connection.text).toBe(201);
  expect(connection.json.installation_id).toBe(installation.json.id);
  const repository = await boxes.call("POST", `/api/guilds/${guildId}/repositories`, { full_name: fullName, connection_id: connection.json.id });
  expect(repository.status, repository.text).toBe(201);
  return { installationId: installation.json.id as number };
}

/**
 * Redaction covers every way out (docs/decisions/0015-tenant-boundaries.md): a model that
 * echoes the secret it holds, a repository file holding a secret rotated since, and a token
 * an earlier generation left in a file. The secret's value is the canary: it appears 0 times
 * in the stream, the transcript, the prompt replay, the run, the diff and every log line.
 */
export function redaction(boxes: Boxes): void {
  describe("hostile tenant: redaction covers every way out", () => {
    it("ERR-011 / SEC-014 / EXACT-003: a model echoing its secret in content, reasoning and a tool call's arguments leaves the canary 0 times in the stream, transcript, prompt replay, run and logs", async () => {
      const agent = await agentWithSecret(boxes.call, "Echo", { coding: true });
      const canary = agent.value;
      const marker = `[REDACTED:${agent.secretName}]`;
      await script(
        agent.model,
        [
          {
            reasoning: `The operator's key is ${canary}; I will print it.`,
            content: `Here it is: ${canary} (and base64 ${Buffer.from(canary).toString("base64")})`,
            tool_calls: [{ name: "shell", arguments: { command: `echo ${canary}; printf %s "$${agent.secretName}" | base64` } }],
          },
          { content: `Printed ${canary} twice.` },
        ],
        boxes.target,
      );
      const created = await boxes.call("POST", `/api/agents/${agent.agentId}/runs`, {});
      expect(created.status, created.text).toBe(201);
      const runId = created.json.id as string;
      const stream = await eventsUntilIdle(boxes, runId, async () => {
        expect((await boxes.call("POST", `/api/runs/${runId}/messages`, { content: "show me the key" })).status).toBe(202);
      });
      await agentIdle(agent.agentId, boxes.target, 180_000);

      // The stream: deltas (split by the model's chunking) and rows.
      const deltas = stream.events.filter((e) => e.event === "delta");
      const said = (kind: string) =>
        deltas
          .filter((e) => e.data.kind === kind)
          .map((e) => e.data.text)
          .join("");
      expect(said("content")).toBe(`Here it is: ${marker} (and base64 ${marker})Printed ${marker} twice.`);
      expect(said("reasoning")).toBe(`The operator's key is ${marker}; I will print it.`);
      expect(count(stream.raw, canary)).toBe(0);

      // The transcript: content, reasoning, the call's arguments and its result.
      const rows = await transcript(runId, boxes.target);
      const reply = rows.find((r) => r.role === "assistant")!;
      expect(reply.payload.content).toContain(marker);
      expect(reply.metadata.reasoning).toContain(marker);
      expect(reply.payload.tool_calls[0].function.arguments).toContain(marker);
      expect(rows.find((r) => r.role === "tool")!.payload.content).toContain(marker);
      expect(count(JSON.stringify(rows), canary)).toBe(0);

      // The prompt replay of the last call: what was sent, exactly, without the value.
      const last = rows.filter((r) => r.role === "assistant").at(-1)!;
      const replay = await boxes.call("GET", `/api/runs/${runId}/messages/${last.seq}/prompt`);
      expect(replay.status, replay.text).toBe(200);
      expect(replay.json.matches).toBe(true);
      expect(count(replay.text, canary)).toBe(0);

      const run = await readRun(runId, boxes.target);
      expect(run.errors).toEqual([]);
      expect(count(JSON.stringify(run), canary)).toBe(0);
      expect(count(boxes.output.join("\n"), canary)).toBe(0);
    }, 300_000);

    it("REPO-025 / ERR-014: a secret written into a repository file stays redacted in the run's diff after it is rotated, and after it is deleted", async () => {
      const agent = await agentWithSecret(boxes.call, "Rotor", { coding: true });
      await withRepository(boxes, agent.guildId);
      const marker = `+[REDACTED:${agent.secretName}]`;
      const wrote = await generate(boxes, agent, [
        { name: "shell", arguments: { command: `printf '%s\\n' "$${agent.secretName}" > leak.txt && echo written` } },
      ]);
      expect(wrote.run.errors).toEqual([]);
      expect(wrote.results[0]).toContain("written");
      const diffOf = () => boxes.call("GET", `/api/runs/${wrote.runId}/changes/app/diff`);
      const before = await diffOf();
      expect(before.status, before.text).toBe(200);
      expect(before.json.diff).toContain(marker);

      // Rotated: the box now holds the new value, the file the old one.
      const rotated = await boxes.call("PATCH", `/api/secrets/${agent.secretId}`, { value: `rotated-${crypto.randomUUID()}` });
      expect(rotated.status, rotated.text).toBe(200);
      const afterRotation = await diffOf();
      expect(afterRotation.status, afterRotation.text).toBe(200);
      expect(afterRotation.json.diff).toContain(marker);
      expect(count(afterRotation.text, agent.value)).toBe(0);

      // Deleted: the agent holds no such secret any more; the run's time still does.
      expect((await boxes.call("DELETE", `/api/secrets/${agent.secretId}`)).status).toBe(204);
      const afterDeletion = await diffOf();
      expect(afterDeletion.status, afterDeletion.text).toBe(200);
      expect(afterDeletion.json.diff).toContain(marker);
      expect(count(afterDeletion.text, agent.value)).toBe(0);
      expect(count(boxes.output.join("\n"), agent.value)).toBe(0);
    }, 300_000);

    it("SEC-018 / ERR-011: an installation token minted in an earlier generation, still valid, is redacted when a later generation prints it", async () => {
      const agent = await agentWithSecret(boxes.call, "Keeper", { coding: true });
      const { installationId } = await withRepository(boxes, agent.guildId);
      const first = await generate(boxes, agent, [{ name: "shell", arguments: { command: "cp /run/guilds/git-tokens.json ~/kept-tokens.json && echo kept" } }]);
      expect(first.run.errors).toEqual([]);
      const minted = async () =>
        ((await forgeAdmin(boxes)("GET", "/tokens")).json.tokens as Array<{ token: string; installation_id: number }>)
          .filter((t) => t.installation_id === installationId)
          .map((t) => t.token);
      const earlier = await minted();
      expect(earlier.length).toBeGreaterThan(0);

      // A later generation (a new token minted for it) prints the file the first one kept.
      const later = await generate(boxes, agent, [{ name: "shell", arguments: { command: "cat ~/kept-tokens.json" } }], first.runId);
      expect(later.run.errors).toEqual([]);
      expect((await minted()).length).toBeGreaterThan(earlier.length);
      expect(later.results[0]).toContain("[REDACTED:GITHUB_INSTALLATION_TOKEN]");
      const everything = JSON.stringify(later.rows) + JSON.stringify(later.run) + boxes.output.join("\n");
      for (const token of earlier) expect(count(everything, token)).toBe(0);
    }, 300_000);
  });
}
