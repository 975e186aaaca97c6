/**
 * Claude Code as a task's harness in the standard box, for real (TASK-011, TASK-015,
 * TASK-016, TASK-022): `guilds-code harness-turn` run through the guest's exec stream as the
 * task's object runs it, the image's claude talking to the mock model's Messages API through
 * a pass-through on this machine (claude-gateway.ts), the credential written as the platform
 * writes it.
 */

import { execFile as execFileCb } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExecLine, LineReader } from "../../containers/guest/ndjson";
import { type MockModel, startMockModel } from "../../scripts/mock-model/server";
import { agentShell, authed, type Box, buildImages, dockerUnavailable, runBox } from "./boxes";
import { type ClaudeGateway, startClaudeGateway } from "./claude-gateway";

const execFile = promisify(execFileCb);
const unavailable = dockerUnavailable();
/** The run's credential: random, so finding it anywhere is no accident. */
const CREDENTIAL = `gmc_${randomBytes(24).toString("hex")}`;
const MODEL = "harness-image-test";
const HARNESS = "/run/guilds/harness";

let box: Box;
let mock: MockModel;
let gateway: ClaudeGateway;
const { sh } = agentShell(() => box);

const put = async (path: string, body: string) => {
  const res = await fetch(`${box.guest}/files?path=${encodeURIComponent(path)}`, authed(box, { method: "PUT", body }));
  expect(res.status).toBe(200);
};
const script = async (replies: unknown[]) => {
  const res = await fetch(`${mock.url}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, replies }),
  });
  expect(res.status).toBe(200);
};
const recorded = async () =>
  (
    (await (await fetch(`${mock.url}/__requests?model=${MODEL}`)).json()) as {
      requests: Array<{ path: string; authorization_sha256: string | null; body: { messages: unknown[] } }>;
    }
  ).requests;

interface Turn {
  /** Each frame with the time it arrived. */
  frames: Array<{ at: number; line: ExecLine }>;
  stdout: string;
  exit: Extract<ExecLine, { type: "exit" }>;
  answer: {
    session_id: string;
    resumed: boolean;
    fresh_reason: string | null;
    exit_code: number | null;
    signal: string | null;
    result: Record<string, unknown> | null;
  };
  /** claude's stream-json lines, parsed. */
  events: Array<Record<string, unknown>>;
}

/** Whether a stream-json line is claude's assistant event calling a tool. */
function callsATool(text: string): boolean {
  try {
    const event = JSON.parse(text) as { type?: string; message?: { content?: Array<{ type?: string }> } };
    return event.type === "assistant" && (event.message?.content ?? []).some((block) => block.type === "tool_use");
  } catch {
    return false;
  }
}

/** harness-turn through the guest's exec stream; `onFrame` sees each frame as it comes. */
async function harnessTurn(flags: Record<string, string>, onFrame: (line: ExecLine) => void = () => {}): Promise<Turn> {
  const words = Object.entries({ "base-url": gateway.url, model: MODEL, ...flags }).map(([name, value]) => `--${name} '${value}'`);
  const res = await fetch(`${box.guest}/exec`, {
    method: "POST",
    headers: { authorization: `Bearer ${box.token}`, "content-type": "application/json" },
    body: JSON.stringify({ command: `guilds-code harness-turn ${words.join(" ")}`, cwd: "/data/workspace", timeout_ms: 120_000, max_output_bytes: 16 << 20 }),
  });
  expect(res.status).toBe(200);
  const reader = new LineReader();
  const decoder = new TextDecoder();
  const frames: Turn["frames"] = [];
  for await (const chunk of res.body!) {
    for (const text of reader.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
      const line = JSON.parse(text) as ExecLine;
      frames.push({ at: Date.now(), line });
      onFrame(line);
    }
  }
  const stdout = frames.map(({ line }) => (line.type === "output" && line.stream === "stdout" ? line.data : "")).join("");
  const lines = stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = lines.at(-1) as { harness_turn: Turn["answer"] };
  return {
    frames,
    stdout,
    exit: frames.at(-1)!.line as Turn["exit"],
    answer: last.harness_turn,
    events: lines.slice(0, -1),
  };
}

beforeAll(async () => {
  if (unavailable) return;
  await buildImages();
  box = await runBox("standard", { HOME: "/home/agent" });
  mock = await startMockModel();
  gateway = await startClaudeGateway(box.ip.replace(/\.\d+$/, ".1"), mock.url);
  await sh("mkdir -p /data/workspace && git -C /data/workspace init -q");
  // As the task's object does: the credential through the file API, readable by root alone.
  await put("/run/guilds/model-credential", CREDENTIAL);
  await sh("chmod 600 /run/guilds/model-credential");
}, 900_000);

afterAll(async () => {
  await box?.remove();
  await gateway?.close();
  await mock?.close();
});

const SESSION = randomUUID();

describe.skipIf(unavailable)("Claude Code in the standard box", () => {
  it("TASK-015, TASK-016: a turn runs claude in /data/workspace: its scripted Bash call makes a file, its lines stream as they come, the answer names the given session", async () => {
    await put(`${HARNESS}/prompt.txt`, "Make a file named made.txt.");
    // The last reply waits a second, so lines that stream show up well before the end.
    await script([
      { tool_calls: [{ name: "Bash", arguments: { command: "echo made-by-claude > /data/workspace/made.txt", description: "Make the file" } }] },
      { content: "Made it.", delay_ms: 1000 },
    ]);
    const turn = await harnessTurn({ session: SESSION, resume: "false", "prompt-file": `${HARNESS}/prompt.txt` });
    expect(turn.exit).toMatchObject({ exit_code: 0, truncated: false });
    expect(turn.answer).toEqual({
      session_id: SESSION,
      resumed: false,
      fresh_reason: null,
      exit_code: 0,
      signal: null,
      result: { subtype: "success", is_error: false, num_turns: 2, stop_reason: "end_turn", text: "Made it." },
    });
    expect((await sh("cat /data/workspace/made.txt")).stdout).toBe("made-by-claude\n");
    expect(turn.events[0]).toMatchObject({ type: "system", subtype: "init", session_id: SESSION, cwd: "/data/workspace" });
    expect((turn.events[0]!.tools as string[]).filter((t) => t.startsWith("mcp__guilds__")).sort()).toEqual([
      "mcp__guilds__ask_question",
      "mcp__guilds__complete_task",
    ]);
    expect(turn.events.map((e) => e.type)).toEqual(["system", "assistant", "user", "assistant", "result"]);
    const toolResult = turn.frames.find(({ line }) => line.type === "output" && line.data.includes('"tool_result"'))!;
    expect(turn.frames.at(-1)!.at - toolResult.at).toBeGreaterThanOrEqual(900);
    // The session is on the volume, in a folder only root may enter.
    expect((await sh(`stat -c %a /data/.claude; ls /data/.claude/projects/*/${SESSION}.jsonl`)).stdout).toMatch(
      /^700\n\/data\/\.claude\/projects\/[^\n]+\.jsonl\n$/,
    );
  });

  it("TASK-011: the model calls carried the run's credential, from the key helper; it is in no process's environment and not in the container's spec", async () => {
    const requests = await recorded();
    expect(requests.length).toBeGreaterThanOrEqual(2);
    const sent = createHash("sha256").update(`Bearer ${CREDENTIAL}`).digest("hex");
    for (const request of requests) expect(request.authorization_sha256).toBe(sent);
    expect(new Set(gateway.calls.flatMap((c) => c.key_headers))).toEqual(new Set(["x-api-key", "authorization"]));
    // A claude that is running: it waits on a scripted command while its environment is read
    // (not a plain sleep, which Claude Code turns down).
    await script([{ tool_calls: [{ name: "Bash", arguments: { command: "tail -f /dev/null", description: "Wait" } }] }, { content: "Waited." }]);
    await put(`${HARNESS}/wait.txt`, "Wait a minute.");
    let claudePid = 0;
    let checked: Promise<void> | undefined;
    const stdout = new LineReader();
    const turn = harnessTurn({ session: randomUUID(), resume: "false", "prompt-file": `${HARNESS}/wait.txt` }, (line) => {
      if (checked || line.type !== "output" || line.stream !== "stdout" || !stdout.push(line.data).some(callsATool)) return;
      checked = (async () => {
        const found = await sh("for i in $(seq 100); do pgrep -x tail >/dev/null && break; sleep 0.1; done; pgrep -x claude");
        claudePid = Number(found.stdout.trim().split("\n")[0]);
        const environ = await sh(`tr '\\0' '\\n' < /proc/${claudePid}/environ`);
        expect(environ.stdout).toContain("ANTHROPIC_BASE_URL=");
        expect(environ.stdout).not.toContain(CREDENTIAL);
        expect(environ.stdout).not.toMatch(/^ANTHROPIC_(API_KEY|AUTH_TOKEN)=/m);
        // No process in the box has it in its environment.
        expect((await sh('grep -l -a -F -e "$(cat /run/guilds/model-credential)" /proc/[0-9]*/environ 2>/dev/null || true')).stdout).toBe("");
        await sh("pkill -x tail");
      })();
    });
    await turn;
    await checked;
    expect(claudePid).toBeGreaterThan(0);
    const { stdout: spec } = await execFile("docker", ["inspect", box.id], { maxBuffer: 1 << 24 });
    expect(spec).not.toContain(CREDENTIAL);
  });

  it("TASK-015: the next turn resumes the session: the model gets the first turn's messages, then the new prompt", async () => {
    await put(`${HARNESS}/prompt.txt`, "Now say what you made.");
    await script([{ content: "I made made.txt." }]);
    const before = (await recorded()).length;
    const turn = await harnessTurn({ session: SESSION, resume: "true", "prompt-file": `${HARNESS}/prompt.txt` });
    expect(turn.answer).toMatchObject({ session_id: SESSION, resumed: true, fresh_reason: null, exit_code: 0, result: { text: "I made made.txt." } });
    const requests = await recorded();
    expect(requests).toHaveLength(before + 1);
    const sent = JSON.stringify(requests.at(-1)!.body.messages);
    for (const earlier of ["Make a file named made.txt.", "echo made-by-claude > /data/workspace/made.txt", "Made it.", "Now say what you made."]) {
      expect(sent).toContain(JSON.stringify(earlier).slice(1, -1));
    }
    expect(sent.indexOf("Make a file named made.txt.")).toBeLessThan(sent.indexOf("Now say what you made."));
  });

  it("TASK-015: a resume whose session file is gone starts a fresh session from the fresh prompt and says session_missing", async () => {
    await sh(`rm /data/.claude/projects/*/${SESSION}.jsonl`);
    await put(`${HARNESS}/fresh.txt`, "The whole task again, from its summary.");
    await script([{ content: "Starting over." }]);
    const turn = await harnessTurn({ session: SESSION, resume: "true", "prompt-file": `${HARNESS}/prompt.txt`, "fresh-prompt-file": `${HARNESS}/fresh.txt` });
    expect(turn.answer).toMatchObject({
      session_id: SESSION,
      resumed: false,
      fresh_reason: "session_missing",
      exit_code: 0,
      result: { text: "Starting over." },
    });
    const sent = JSON.stringify((await recorded()).at(-1)!.body.messages);
    expect(sent).toContain("The whole task again, from its summary.");
    expect(sent).not.toContain("Make a file named made.txt.");
    expect(sent).not.toContain("Now say what you made.");
  });

  it("TASK-016: the task's tools reach claude from guilds-code mcp: a complete_task call is answered, and the model sees both tools whole", async () => {
    await put(`${HARNESS}/done.txt`, "Finish the task.");
    await script([{ tool_calls: [{ name: "mcp__guilds__complete_task", arguments: { summary: "Made made.txt." } }] }, { content: "Done." }]);
    const turn = await harnessTurn({ session: randomUUID(), resume: "false", "prompt-file": `${HARNESS}/done.txt` });
    expect(turn.answer).toMatchObject({ exit_code: 0, result: { subtype: "success", text: "Done." } });
    const results = JSON.stringify(turn.events.filter((e) => e.type === "user"));
    expect(results).toContain("Recorded. The platform completes the task when this turn ends.");
    const requests = await recorded();
    const tools = (requests.at(-2)!.body as unknown as { tools: Array<{ name: string; input_schema?: unknown }> }).tools;
    expect(tools.filter((t) => t.name.startsWith("mcp__guilds__")).map((t) => [t.name, t.input_schema !== undefined])).toEqual([
      ["mcp__guilds__ask_question", true],
      ["mcp__guilds__complete_task", true],
    ]);
  });

  it("TASK-022: SIGTERM to harness-turn ends claude and everything it started within 5 s, and the turn still answers", async () => {
    await script([
      { tool_calls: [{ name: "Bash", arguments: { command: "(trap '' TERM; exec sleep 300) & setsid sleep 301 & sleep 302", description: "Wait long" } }] },
      { content: "never reached" },
    ]);
    await put(`${HARNESS}/long.txt`, "Wait long.");
    let stopped = 0;
    let running = "";
    let stopping: Promise<unknown> | undefined;
    let killed = "";
    const stdout = new LineReader();
    const turn = await harnessTurn({ session: randomUUID(), resume: "false", "prompt-file": `${HARNESS}/long.txt` }, (line) => {
      if (stopping || line.type !== "output" || line.stream !== "stdout") return;
      // Once claude has said it calls Bash (an assistant event with a tool_use block), not on
      // any line that names a tool: the init line lists them all before any call has started.
      if (!stdout.push(line.data).some(callsATool)) return;
      stopping = (async () => {
        await sh("for i in $(seq 100); do [ $(pgrep -x sleep | wc -l) -ge 3 ] && break; sleep 0.1; done");
        running = (await sh("pgrep -x claude; pgrep -x sleep")).stdout;
        stopped = Date.now();
        killed = (await sh("pids=$(pgrep -f '^/usr/local/bin/node /opt/guilds-code/guilds-code.mjs harness-turn'); echo $pids; kill -TERM $pids")).stdout;
      })();
    });
    await stopping;
    expect(running.trim().split("\n")).toHaveLength(4);
    expect(killed.trim(), "harness-turn's one pid").toMatch(/^\d+$/);
    // A turn that ended before the kill reached it (exit 0) says here what claude saw last.
    const lastEvents = JSON.stringify(turn.events.slice(-3)).slice(-2_000);
    expect(turn.frames.at(-1)!.at - stopped, lastEvents).toBeGreaterThanOrEqual(0);
    expect(turn.frames.at(-1)!.at - stopped).toBeLessThan(5_000);
    expect(turn.exit.exit_code, lastEvents).toBe(3);
    expect(turn.answer).toMatchObject({ result: null });
    expect(turn.answer.exit_code !== 0 || turn.answer.signal !== null).toBe(true);
    expect((await sh("pgrep -x claude; pgrep -x sleep; pgrep -f 'guilds-code[.]mjs mcp'; true")).stdout).toBe("");
  });

  it("TASK-016: what Claude Code asked the gateway for in -p mode: Messages calls alone", () => {
    expect(new Set(gateway.calls.map((c) => `${c.method} ${c.url}`))).toEqual(new Set(["POST /v1/messages?beta=true"]));
    expect(new Set(gateway.calls.map((c) => c.model))).toEqual(new Set([MODEL]));
    expect(gateway.calls.every((c) => c.stream === true && typeof c.max_tokens === "number")).toBe(true);
  });
});
