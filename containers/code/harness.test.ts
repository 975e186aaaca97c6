/**
 * guilds-code's harness parts without a box (TASK-011, TASK-015, TASK-016): harness-turn's
 * flags, the claude command line and environment they make, the session lookup and the
 * turn's summary, and the MCP server's answers to what Claude Code sends it.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claudeArgs,
  claudeEnv,
  cutUtf8,
  findSessionFile,
  type HarnessTurnOptions,
  initSessionId,
  parseExtraArgs,
  parseHarnessFlags,
  RESULT_TEXT_BYTES,
  turnResult,
} from "./harness-args";
import { answerLine, answerMessage, MCP_TOOLS, serveMcp } from "./mcp";
import { tempDir } from "./test-support";
import { UsageError } from "./usage";

const SESSION = "0b6c7d2e-4f1a-4b8c-9d3e-2a1b0c9d8e7f";
const BASE = ["--session", SESSION, "--resume", "true", "--prompt-file", "/run/guilds/harness/prompt.txt", "--base-url", "http://gw.test/tasks/t1"];

describe("harness-turn's flags", () => {
  it("TASK-015: the required flags alone give a resume in bypass mode, nothing else set", () => {
    expect(parseHarnessFlags(BASE)).toEqual({
      session: SESSION,
      resume: true,
      promptFile: "/run/guilds/harness/prompt.txt",
      freshPromptFile: undefined,
      baseUrl: "http://gw.test/tasks/t1",
      reportFile: undefined,
      systemFile: undefined,
      model: undefined,
      maxTurns: undefined,
      permissionMode: "bypassPermissions",
      allowedTools: undefined,
      disallowedTools: undefined,
      extraArgs: [],
    });
  });

  it("TASK-015: every optional flag is read", () => {
    const options = parseHarnessFlags([
      ...BASE,
      "--fresh-prompt-file",
      "/run/guilds/harness/fresh.txt",
      "--report-file",
      "/run/guilds/harness/turn.json",
      "--system-file",
      "/run/guilds/harness/system.txt",
      "--model",
      "claude-sonnet-4-5[1m]",
      "--max-turns",
      "40",
      "--permission-mode",
      "acceptEdits",
      "--allowed-tools",
      "Read,Bash(git *)",
      "--disallowed-tools",
      "WebFetch",
      "--extra-args",
      '["--effort=high","--strict-mcp-config"]',
    ]);
    expect(options).toMatchObject({
      freshPromptFile: "/run/guilds/harness/fresh.txt",
      reportFile: "/run/guilds/harness/turn.json",
      systemFile: "/run/guilds/harness/system.txt",
      model: "claude-sonnet-4-5[1m]",
      maxTurns: 40,
      permissionMode: "acceptEdits",
      allowedTools: "Read,Bash(git *)",
      disallowedTools: "WebFetch",
      extraArgs: ["--effort=high", "--strict-mcp-config"],
    });
  });

  it("TASK-015: a bad or missing flag is a usage error", () => {
    const without = (flag: string) => {
      const args = [...BASE];
      args.splice(args.indexOf(flag), 2);
      return args;
    };
    const bad: string[][] = [
      without("--session"),
      without("--resume"),
      without("--prompt-file"),
      without("--base-url"),
      [...BASE.slice(0, 1), "not-a-uuid", ...BASE.slice(2)],
      [...BASE.slice(0, 1), SESSION.toUpperCase(), ...BASE.slice(2)],
      [...BASE.slice(0, 3), "yes", ...BASE.slice(4)],
      [...BASE.slice(0, 5), "prompt.txt", ...BASE.slice(6)],
      [...BASE.slice(0, 5), "/run/../etc/passwd", ...BASE.slice(6)],
      [...BASE.slice(0, 7), "ftp://gw.test", ...BASE.slice(8)],
      [...BASE, "--permission-mode", "auto"],
      [...BASE, "--max-turns", "0"],
      [...BASE, "--model", "--settings"],
      [...BASE, "--allowed-tools", "Read\nBash"],
      [...BASE, "--unknown", "x"],
    ];
    for (const args of bad) expect(() => parseHarnessFlags(args), args.join(" ")).toThrow(UsageError);
  });

  it("TASK-015: extra arguments are a JSON array of one-line strings, checked again here", () => {
    expect(parseExtraArgs('["--add-dir=/data/workspace/lib"]')).toEqual(["--add-dir=/data/workspace/lib"]);
    expect(parseExtraArgs("[]")).toEqual([]);
    for (const json of ['"--effort"', '{"a":1}', "[1]", '["a\\nb"]', '["a\\u0000b"]', '["\\r"]', '[""]', "not json"]) {
      expect(() => parseExtraArgs(json), json).toThrow(UsageError);
    }
  });
});

describe("claude's command line and environment", () => {
  const options = (over: Partial<HarnessTurnOptions> = {}): HarnessTurnOptions => ({ ...parseHarnessFlags(BASE), ...over });
  const valueAfter = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

  it("TASK-015: a new session is named with --session-id, a resumed one with --resume; the stream is always stream-json, the prompt on stdin", () => {
    const fresh = claudeArgs(options(), true);
    expect(fresh.slice(0, 6)).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--session-id", SESSION]);
    expect(fresh).not.toContain("--resume");
    const resumed = claudeArgs(options(), false);
    expect(resumed.slice(4, 6)).toEqual(["--resume", SESSION]);
    expect(resumed).not.toContain("--session-id");
    expect(resumed).toContain("--dangerously-skip-permissions");
    expect(resumed).not.toContain("--permission-mode");
  });

  it("TASK-011: the key comes from the key helper reading the credential file; the settings also pin the gateway", () => {
    const settings = JSON.parse(valueAfter(claudeArgs(options(), true), "--settings")!);
    expect(settings).toEqual({ apiKeyHelper: "cat /run/guilds/model-credential", env: { ANTHROPIC_BASE_URL: "http://gw.test/tasks/t1" } });
  });

  it("TASK-016: the guilds MCP server is guilds-code mcp over stdio", () => {
    const mcp = JSON.parse(valueAfter(claudeArgs(options(), true), "--mcp-config")!);
    expect(mcp).toEqual({ mcpServers: { guilds: { type: "stdio", command: "guilds-code", args: ["mcp"] } } });
  });

  it("TASK-015: the optional flags map to claude's, the extra arguments come last and in order", () => {
    const args = claudeArgs(
      options({
        permissionMode: "plan",
        model: "opus",
        maxTurns: 7,
        systemFile: "/run/guilds/harness/system.txt",
        allowedTools: "Read,Edit",
        disallowedTools: "Bash(rm *)",
        extraArgs: ["--effort=low", "--strict-mcp-config"],
      }),
      true,
    );
    expect(valueAfter(args, "--permission-mode")).toBe("plan");
    expect(args).not.toContain("--dangerously-skip-permissions");
    expect(valueAfter(args, "--model")).toBe("opus");
    expect(valueAfter(args, "--max-turns")).toBe("7");
    expect(valueAfter(args, "--append-system-prompt-file")).toBe("/run/guilds/harness/system.txt");
    expect(valueAfter(args, "--allowedTools")).toBe("Read,Edit");
    expect(valueAfter(args, "--disallowedTools")).toBe("Bash(rm *)");
    expect(args.slice(-2)).toEqual(["--effort=low", "--strict-mcp-config"]);
  });

  it("TASK-011: claude's environment drops every inherited ANTHROPIC_* and CLAUDE_* variable and holds no key", () => {
    const env = claudeEnv(
      {
        PATH: "/usr/bin",
        HOME: "/home/agent",
        ANTHROPIC_API_KEY: "sk-box",
        ANTHROPIC_AUTH_TOKEN: "t",
        CLAUDE_CODE_OAUTH_TOKEN: "o",
        CLAUDE_CONFIG_DIR: "/x",
        GUILDS_EXEC_ID: "e1",
      },
      "http://gw.test/tasks/t1",
    );
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/agent",
      GUILDS_EXEC_ID: "e1",
      ANTHROPIC_BASE_URL: "http://gw.test/tasks/t1",
      CLAUDE_CONFIG_DIR: "/data/.claude",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      IS_SANDBOX: "1",
    });
  });
});

describe("the session's file and the turn's summary", () => {
  let temp: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    temp = await tempDir("guilds-harness-");
  });
  afterAll(async () => {
    await temp?.remove();
  });

  it("TASK-015: a session is found in any project folder; a missing one, a folder or a link of that name is not a session", async () => {
    const config = join(temp.dir, "claude");
    expect(await findSessionFile(config, SESSION)).toBeUndefined();
    await mkdir(join(config, "projects", "-data-workspace"), { recursive: true });
    expect(await findSessionFile(config, SESSION)).toBeUndefined();
    await mkdir(join(config, "projects", "-data-workspace", `${SESSION}.jsonl`));
    await mkdir(join(config, "projects", "-elsewhere"));
    await writeFile(join(temp.dir, "outside.jsonl"), "{}\n");
    await symlink(join(temp.dir, "outside.jsonl"), join(config, "projects", "-elsewhere", `${SESSION}.jsonl`));
    expect(await findSessionFile(config, SESSION)).toBeUndefined();
    await mkdir(join(config, "projects", "-data-workspace-sub"));
    await writeFile(join(config, "projects", "-data-workspace-sub", `${SESSION}.jsonl`), "{}\n");
    expect(await findSessionFile(config, SESSION)).toBe(join(config, "projects", "-data-workspace-sub", `${SESSION}.jsonl`));
  });

  it("TASK-016: the result line is summed up: success, an error without text, text cut at 4 KiB on a character; other lines are not results", () => {
    const success = JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 3, stop_reason: "end_turn", result: "Done.", usage: {} });
    expect(turnResult(success)).toEqual({ subtype: "success", is_error: false, num_turns: 3, stop_reason: "end_turn", text: "Done." });
    const maxTurns = JSON.stringify({
      stop_reason: "tool_use",
      is_error: true,
      num_turns: 2,
      subtype: "error_max_turns",
      errors: ["Reached maximum number of turns (1)"],
      type: "result",
    });
    expect(turnResult(maxTurns)).toEqual({
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 2,
      stop_reason: "tool_use",
      text: "Reached maximum number of turns (1)",
    });
    const long = turnResult(JSON.stringify({ type: "result", subtype: "success", result: "é".repeat(3000) }))!;
    expect(Buffer.byteLength(long.text!)).toBe(RESULT_TEXT_BYTES);
    expect(long.text).toBe("é".repeat(RESULT_TEXT_BYTES / 2));
    expect(turnResult(JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: '"result"' }] } }))).toBeUndefined();
    expect(turnResult('{"type":"result"')).toBeUndefined();
    expect(cutUtf8("aé", 2)).toBe("a");
  });

  it("TASK-015: the session id is read from claude's system/init line only", () => {
    expect(initSessionId(JSON.stringify({ type: "system", subtype: "init", session_id: SESSION, tools: [] }))).toBe(SESSION);
    expect(initSessionId(JSON.stringify({ type: "assistant", subtype: "init", session_id: "other" }))).toBeUndefined();
    expect(initSessionId(JSON.stringify({ type: "result", session_id: SESSION }))).toBeUndefined();
  });
});

describe("guilds-code mcp", () => {
  const rpc = (id: number | string, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

  it("TASK-016: initialize answers the client's protocol version when it is known, the newest otherwise, with tools as the one capability", () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
      expect(
        answerMessage(rpc(0, "initialize", { protocolVersion: version, capabilities: {}, clientInfo: { name: "claude-code", version: "2.1.328" } })),
      ).toEqual({
        jsonrpc: "2.0",
        id: 0,
        result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "guilds", version: "1.0.0" } },
      });
    }
    expect(answerMessage(rpc(1, "initialize", { protocolVersion: "2030-01-01" }))).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
  });

  it("TASK-016: tools/list names complete_task and ask_question with their schemas, loaded up front", () => {
    const answer = answerMessage(rpc("a", "tools/list")) as unknown as {
      result: { tools: Array<{ name: string; inputSchema: { required: string[] }; _meta: object }> };
    };
    expect(answer.result.tools.map((t) => [t.name, t.inputSchema.required])).toEqual([
      ["complete_task", ["summary"]],
      ["ask_question", ["question", "blocking"]],
    ]);
    expect(answer.result.tools[0]).toMatchObject({
      description: "Mark the task complete: its pull request turns ready for review. Call it once the work is committed.",
      _meta: { "anthropic/alwaysLoad": true },
    });
    expect(MCP_TOOLS).toHaveLength(2);
  });

  it("TASK-016: tools/call answers a short text; bad arguments are a tool error, an unknown tool a JSON-RPC error", () => {
    const call = (name: string, args: unknown) => answerMessage(rpc(2, "tools/call", { name, arguments: args }));
    expect(call("complete_task", { summary: "Fixed it." })).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "Recorded. The platform completes the task when this turn ends." }] },
    });
    expect(call("ask_question", { question: "Which version?", blocking: true })).toMatchObject({
      result: { content: [{ text: expect.stringContaining("end your turn now") }] },
    });
    expect(call("ask_question", { question: "Which version?", blocking: false })).toMatchObject({
      result: { content: [{ text: expect.stringContaining("go on meanwhile") }] },
    });
    expect(call("complete_task", { summary: "" })).toMatchObject({ result: { isError: true } });
    expect(call("complete_task", {})).toMatchObject({ result: { isError: true } });
    expect(call("ask_question", { question: "Why?" })).toMatchObject({ result: { isError: true } });
    expect(call("ask_question", { question: "x".repeat(4001), blocking: true })).toMatchObject({ result: { isError: true } });
    expect(call("rm_rf", {})).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  it("TASK-016: ping answers, notifications and responses get nothing, unknown methods and broken lines are JSON-RPC errors", () => {
    expect(answerMessage(rpc(3, "ping"))).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(answerMessage({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeUndefined();
    expect(answerMessage({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })).toBeUndefined();
    expect(answerMessage({ jsonrpc: "2.0", id: 9, result: {} })).toBeUndefined();
    expect(answerMessage(rpc("server-discover-probe-1", "server/discover"))).toEqual({
      jsonrpc: "2.0",
      id: "server-discover-probe-1",
      error: { code: -32601, message: "method not found: server/discover" },
    });
    expect(answerMessage(rpc(4, "resources/list"))).toMatchObject({ error: { code: -32601 } });
    expect(answerLine("{not json")).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    expect(answerLine('{"id":1,"method":"ping"}')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answerLine("   ")).toBeUndefined();
    expect(answerLine(JSON.stringify([rpc(5, "ping"), { jsonrpc: "2.0", method: "notifications/x" }]))).toEqual([{ jsonrpc: "2.0", id: 5, result: {} }]);
  });

  it("TASK-016: the server answers line by line over stdio until its input closes", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: string[] = [];
    output.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
    const served = serveMcp(input, output);
    input.write(`${JSON.stringify(rpc(0, "initialize", { protocolVersion: "2025-06-18" }))}\n`);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\r\n`);
    input.end(`${JSON.stringify(rpc(1, "tools/list"))}\n`);
    expect(await served).toBe(0);
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([0, 1]);
  });
});
