/**
 * harness-turn as a process (TASK-015, TASK-016, TASK-022), with a stand-in for claude: a
 * small script that answers like claude's stream-json and says what it was given. The real
 * claude runs in the image test (test/images/harness-turn.test.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { tempDir } from "./test-support";

let temp: Awaited<ReturnType<typeof tempDir>>;
let runner: string;
let paths: { configDir: string; workspace: string; credentialFile: string; claude: string };
const SESSION = "5d2c1b0a-9e8f-4a7b-8c6d-5e4f3a2b1c0d";

/** The stand-in: FAKE_MODE=turn answers and saves a session; hang starts children that outlive it and ignores SIGTERM. */
const FAKE_CLAUDE = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const args = process.argv.slice(2);
const session = args[(args.includes("--session-id") ? args.indexOf("--session-id") : args.indexOf("--resume")) + 1];
const prompt = fs.readFileSync(0, "utf8");
const say = (o) => process.stdout.write(JSON.stringify(o) + "\\n");
say({ type: "system", subtype: "init", session_id: session, cwd: process.cwd() });
if (process.env.FAKE_MODE === "hang") {
  process.on("SIGTERM", () => {});
  const escaped = spawn("setsid", ["sleep", "300"], { stdio: "ignore" });
  const stubborn = spawn("sh", ["-c", "trap '' TERM; sleep 300 & wait"], { stdio: "ignore" });
  say({ type: "pids", claude: process.pid, escaped: escaped.pid, stubborn: stubborn.pid });
  setInterval(() => {}, 1000);
} else {
  say({ type: "assistant", args, prompt, env: process.env });
  process.stderr.write("s".repeat(64 * 1024) + "e".repeat(200 * 1024) + "END-OF-STDERR");
  const dir = process.env.CLAUDE_CONFIG_DIR + "/projects/-ws";
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(dir + "/" + session + ".jsonl", "{}\\n");
  process.stdout.write(JSON.stringify({ type: "result", subtype: "success", is_error: false, num_turns: 1, stop_reason: "end_turn", result: "ok " + prompt }));
}
`;

beforeAll(async () => {
  temp = await tempDir("guilds-harness-turn-");
  paths = {
    configDir: join(temp.dir, "data/.claude"),
    workspace: join(temp.dir, "data/workspace"),
    credentialFile: join(temp.dir, "run/model-credential"),
    claude: join(temp.dir, "bin/claude"),
  };
  await mkdir(paths.workspace, { recursive: true });
  await mkdir(join(temp.dir, "run"));
  await mkdir(join(temp.dir, "bin"));
  await writeFile(paths.credentialFile, "run-credential-1", { mode: 0o600 });
  await writeFile(join(temp.dir, "bin/fake-claude.cjs"), FAKE_CLAUDE);
  await writeFile(paths.claude, `#!/bin/sh\nexec "${process.execPath}" "${join(temp.dir, "bin/fake-claude.cjs")}" "$@"\n`);
  await chmod(paths.claude, 0o755);
  // harness-turn with the test's folders in place of the box's.
  const entry = join(temp.dir, "runner.ts");
  await writeFile(
    entry,
    [
      `import { harnessTurnCommand } from ${JSON.stringify(fileURLToPath(new URL("./harness-turn.ts", import.meta.url)))};`,
      "harnessTurnCommand(process.argv.slice(3), JSON.parse(process.argv[2])).then((code) => { process.exitCode = code; });",
    ].join("\n"),
  );
  runner = join(temp.dir, "runner.mjs");
  await build({ entryPoints: [entry], bundle: true, platform: "node", target: "node24", format: "esm", outfile: runner, logLevel: "warning" });
}, 30_000);

afterAll(async () => {
  await temp?.remove();
});

function turn(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [runner, JSON.stringify(paths), ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<{ code: number | null }>((resolve) => child.on("close", (code) => resolve({ code })));
  return { child, done, lines: () => stdout.split("\n").filter(Boolean), stderr: () => stderr };
}

/** Running: a zombie waiting for its reaper counts as gone. */
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, { encoding: "utf8", flag: "r" }));

const flags = (resume: boolean, extra: string[] = []) => [
  "--session",
  SESSION,
  "--resume",
  String(resume),
  "--prompt-file",
  join(temp.dir, "prompt.txt"),
  "--fresh-prompt-file",
  join(temp.dir, "fresh.txt"),
  "--report-file",
  join(temp.dir, "run/harness/turn.json"),
  "--base-url",
  "http://gateway.test/tasks/t1",
  ...extra,
];

describe("harness-turn with a stand-in claude", () => {
  it("TASK-015, TASK-016: claude's lines come through in order, then the answer; a resume without a session starts fresh from the fresh prompt", async () => {
    await writeFile(join(temp.dir, "prompt.txt"), "the messages since");
    await writeFile(join(temp.dir, "fresh.txt"), "the whole task");
    const run = turn(flags(true), { ANTHROPIC_API_KEY: "sk-box-key", CLAUDE_CODE_OAUTH_TOKEN: "oauth" });
    expect((await run.done).code).toBe(0);
    const lines = run.lines().map((line) => JSON.parse(line));
    expect(lines.map((l) => l.type ?? Object.keys(l)[0])).toEqual(["system", "assistant", "result", "harness_turn"]);
    const seen = lines[1];
    expect(seen.prompt).toBe("the whole task");
    expect(seen.args.slice(0, 6)).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--session-id", SESSION]);
    expect(seen.env).toMatchObject({ ANTHROPIC_BASE_URL: "http://gateway.test/tasks/t1", CLAUDE_CONFIG_DIR: paths.configDir, IS_SANDBOX: "1" });
    expect(Object.keys(seen.env).filter((name) => /KEY|TOKEN/.test(name))).toEqual([]);
    expect(lines[3]).toEqual({
      harness_turn: {
        session_id: SESSION,
        resumed: false,
        fresh_reason: "session_missing",
        exit_code: 0,
        signal: null,
        result: { subtype: "success", is_error: false, num_turns: 1, stop_reason: "end_turn", text: "ok the whole task" },
      },
    });
    expect(JSON.parse(await readFile(join(temp.dir, "run/harness/turn.json"), "utf8"))).toEqual(lines[3]);
    // stderr: the first 64 KiB as it came, then a note and the last 64 KiB.
    const stderr = run.stderr();
    const note = /\n\[claude's stderr: (\d+) bytes left out\]\n/.exec(stderr);
    expect(note?.index).toBe(64 * 1024);
    expect(stderr.slice(0, note!.index) === "s".repeat(64 * 1024)).toBe(true);
    expect(stderr.length - note!.index - note![0].length).toBe(64 * 1024);
    expect(Number(note![1])).toBe(200 * 1024 + "END-OF-STDERR".length - 64 * 1024);
    expect(stderr.endsWith("eEND-OF-STDERR")).toBe(true);
    expect(statSync(paths.configDir).mode & 0o777).toBe(0o700);
  });

  it("TASK-015: the next turn resumes the session it left, from the prompt file", async () => {
    const run = turn(flags(true));
    expect((await run.done).code).toBe(0);
    const lines = run.lines().map((line) => JSON.parse(line));
    expect(lines[1].prompt).toBe("the messages since");
    expect(lines[1].args.slice(4, 6)).toEqual(["--resume", SESSION]);
    expect(lines.at(-1).harness_turn).toMatchObject({ resumed: true, fresh_reason: null });
  });

  it("TASK-015: a missing credential is named before claude starts, and no earlier report stands in", async () => {
    await writeFile(join(temp.dir, "run/harness/turn.json"), "stale");
    await rename(paths.credentialFile, `${paths.credentialFile}.away`);
    try {
      const run = turn(flags(false));
      expect((await run.done).code).toBe(3);
      expect(JSON.parse(run.lines().at(-1)!)).toEqual({ error: "harness.setup", message: expect.stringContaining("model credential") });
      expect(existsSync(join(temp.dir, "run/harness/turn.json"))).toBe(false);
    } finally {
      await rename(`${paths.credentialFile}.away`, paths.credentialFile);
    }
  });

  it("TASK-022: SIGTERM ends claude, a child that ignores it and one that left the group; harness-turn answers within 5 s", async () => {
    const run = turn(flags(false, ["--max-turns", "3"]), { FAKE_MODE: "hang" });
    const pids = await vi.waitFor(
      () => {
        const line = run.lines().find((l) => l.includes('"type":"pids"'));
        if (!line) throw new Error("no pids yet");
        return JSON.parse(line) as { claude: number; escaped: number; stubborn: number };
      },
      { timeout: 15_000, interval: 50 },
    );
    for (const pid of [pids.claude, pids.escaped, pids.stubborn]) expect(alive(pid)).toBe(true);
    const stopped = Date.now();
    (run.child as ChildProcess).kill("SIGTERM");
    expect((await run.done).code).toBe(3);
    expect(Date.now() - stopped).toBeLessThan(5_000);
    for (const pid of [pids.claude, pids.escaped, pids.stubborn]) expect(alive(pid), `pid ${pid}`).toBe(false);
    expect(JSON.parse(run.lines().at(-1)!).harness_turn).toMatchObject({ session_id: SESSION, exit_code: null, signal: "SIGKILL", result: null });
  });
});
