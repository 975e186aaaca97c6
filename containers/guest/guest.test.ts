/**
 * The guest as a real process: bundled as the images will run it, started on a free port
 * over a temporary home, driven over HTTP.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRINTED_BEFORE_TIMEOUT_TEST_MS, printedBeforeTimeout } from "../../test/unit/printed-before-timeout";
import { type ExecLine, LineReader } from "./ndjson";
import { markedProcesses } from "./process-sweep";
import { auth, bundleGuest, type RunningGuest, startGuest, TOKEN, tempDir } from "./test-support/guest-process";

let temp: Awaited<ReturnType<typeof tempDir>>;
let dir: string;
let home: string;
let guest: RunningGuest;
let base: string;

beforeAll(async () => {
  temp = await tempDir("guest-test-");
  dir = temp.dir;
  guest = await startGuest(await bundleGuest(dir), dir, { GUEST_MAX_FILE_BYTES: String(1 << 20) });
  home = guest.home;
  base = guest.base;
}, 30_000);

afterAll(async () => {
  await guest?.stop();
  await temp?.remove();
});

interface Timed {
  line: ExecLine;
  at: number;
}

/** Runs a command and collects its frames with their arrival times. */
async function exec(body: Record<string, unknown>, onLine?: (line: ExecLine) => void, signal?: AbortSignal): Promise<{ lines: Timed[]; res: Response }> {
  const res = await fetch(`${base}/exec`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body), signal });
  const lines: Timed[] = [];
  if (res.status !== 200) return { lines, res };
  const reader = new LineReader();
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const text of reader.push(decoder.decode(chunk, { stream: true }))) {
      const line = JSON.parse(text) as ExecLine;
      lines.push({ line, at: performance.now() });
      onLine?.(line);
    }
  }
  return { lines, res };
}

/** Whether the command printed `n` pids (one per line) before its end. */
const printedPids =
  (n: number) =>
  ({ lines }: { lines: Timed[] }) =>
    output(lines, "stdout")
      .split("\n")
      .filter((l) => /^\d+$/.test(l)).length >= n;
/** Runs `command` (which prints its grandchild's pid) until its timeout, once it printed before it. */
async function timedOutGrandchild(command: string): Promise<{ lines: Timed[]; grandchild: number }> {
  const {
    result: { lines },
  } = await printedBeforeTimeout((timeout_ms) => exec({ command, timeout_ms }), printedPids(1));
  return { lines, grandchild: Number(output(lines, "stdout").trim()) };
}
const output = (lines: Timed[], stream: "stdout" | "stderr") =>
  lines
    .map((t) => t.line)
    .filter((l): l is Extract<ExecLine, { type: "output" }> => l.type === "output" && l.stream === stream)
    .map((l) => l.data)
    .join("");
const exitOf = (lines: Timed[]) => lines.at(-1)!.line as Extract<ExecLine, { type: "exit" }>;

/** Whether a pid no longer runs (a zombie waiting for init to reap it counts as gone). */
async function gone(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
async function waitGone(pid: number, ms = 5_000): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await gone(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return gone(pid);
}

describe("SBX-GUEST: auth", () => {
  it("SBX-GUEST: a request without the token, or with a wrong one, is refused with 401", async () => {
    const none = await fetch(`${base}/exec`, { method: "POST", body: JSON.stringify({ command: "touch x" }) });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: { code: "auth.invalid", message: "missing or wrong bearer token" } });
    const wrong = await fetch(`${base}/files?path=${home}/x`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
  });
  it("SBX-GUEST: health answers without the token and says nothing else", async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, version: "1" });
  });
});

describe("OP-SBX-9: exec", () => {
  it("OP-SBX-9: exit code, stdout and stderr, with a start frame carrying the id", async () => {
    const { lines, res } = await exec({ command: "echo out; echo err >&2; exit 3" });
    expect(res.headers.get("content-type")).toBe("application/x-ndjson");
    const start = lines[0]!.line;
    expect(start).toMatchObject({ type: "start", id: res.headers.get("x-exec-id") });
    expect(output(lines, "stdout")).toBe("out\n");
    expect(output(lines, "stderr")).toBe("err\n");
    expect(exitOf(lines)).toMatchObject({ type: "exit", exit_code: 3, signal: null, timed_out: false, killed: false, truncated: false });
  });
  it("OP-SBX-9: output streams as it comes, in order", async () => {
    const { lines } = await exec({ command: "echo first; sleep 0.6; echo second" });
    const outputs = lines.filter((t) => t.line.type === "output");
    expect(outputs.map((t) => (t.line as { data: string }).data)).toEqual(["first\n", "second\n"]);
    expect(outputs[1]!.at - outputs[0]!.at).toBeGreaterThan(400);
  });
  it("OP-SEC-3: the guest takes its settings from its file, removed once read; GUEST_* in the box's environment configures nothing", async () => {
    const other = await startGuest(
      await bundleGuest(dir),
      dir,
      {},
      { GUEST_HOME: "/tmp", GUEST_TOKEN: "an-environment-token-0123456789", GUEST_MAX_FILE_BYTES: "1" },
    );
    try {
      await expect(readFile(other.settingsFile)).rejects.toMatchObject({ code: "ENOENT" });
      const headers = { ...auth, "content-type": "application/json" };
      const refused = await fetch(`${other.base}/exec`, { method: "POST", headers: { authorization: "Bearer an-environment-token-0123456789" }, body: "{}" });
      expect(refused.status).toBe(401);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash parameter expansion, run by the guest
      const res = await fetch(`${other.base}/exec`, { method: "POST", headers, body: JSON.stringify({ command: 'pwd; echo "${GUEST_HOME:-none}"' }) });
      const frames = (await res.text())
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ExecLine);
      const stdout = frames.map((f) => (f.type === "output" ? f.data : "")).join("");
      expect(stdout).toBe(`${other.home}\nnone\n`);
      const put = await fetch(`${other.base}/files?path=${encodeURIComponent(join(other.home, "f.txt"))}`, {
        method: "PUT",
        headers: auth,
        body: "more than one byte",
      });
      expect(put.status).toBe(200);
    } finally {
      await other.stop();
    }
  });
  it("OP-SBX-9: cwd and env are applied; env merges over the guest's and the guest token never reaches a command", async () => {
    const cwd = join(home, "work");
    await mkdir(cwd);
    const { lines } = await exec({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash parameter expansion, run by the guest
      command: 'pwd; echo "$FOO"; echo "${GUEST_TOKEN:-no token}"; test -n "$PATH" && echo has-path',
      cwd,
      env: { FOO: "bar baz" },
    });
    expect(output(lines, "stdout")).toBe(`${cwd}\nbar baz\nno token\nhas-path\n`);
  });
  it("OP-SBX-9: a missing cwd and a bad body are clear 400s", async () => {
    const missing = await fetch(`${base}/exec`, { method: "POST", headers: auth, body: JSON.stringify({ command: "ls", cwd: join(home, "nope") }) });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("cwd.not_found");
    const bad = await fetch(`${base}/exec`, { method: "POST", headers: auth, body: "{" });
    expect(bad.status).toBe(400);
  });
  it(
    "OP-SBX-9: a timeout kills the whole process group, the backgrounded grandchild included",
    async () => {
      // A kill before bash printed the pid is not this test: a loaded machine gets a longer timeout.
      const {
        result: { lines, ms },
        timeoutMs,
      } = await printedBeforeTimeout(async (timeout_ms) => {
        const started = performance.now();
        const { lines } = await exec({ command: "sleep 60 & echo $!; wait", timeout_ms });
        return { lines, ms: performance.now() - started };
      }, printedPids(1));
      const grandchild = Number(output(lines, "stdout").trim());
      expect(grandchild).toBeGreaterThan(0);
      expect(exitOf(lines)).toMatchObject({ timed_out: true, exit_code: null, signal: "SIGTERM" });
      expect(ms).toBeLessThan(timeoutMs + 5_000);
      expect(await waitGone(grandchild)).toBe(true);
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );
  it(
    "OP-SBX-9: a group that ignores SIGTERM is killed with SIGKILL after the grace period",
    async () => {
      // A TERM before the trap is installed (before the pid is printed) is not this test.
      const { lines, grandchild } = await timedOutGrandchild("trap '' TERM; sleep 60 & echo $!; wait");
      expect(exitOf(lines)).toMatchObject({ timed_out: true, signal: "SIGKILL" });
      expect(await waitGone(grandchild)).toBe(true);
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );
  it(
    "OP-SBX-9: a grandchild that ignores SIGTERM is killed after bash itself has exited",
    async () => {
      const { lines, grandchild } = await timedOutGrandchild("(trap '' TERM; exec sleep 60) & echo $!; wait");
      expect(exitOf(lines)).toMatchObject({ timed_out: true, signal: "SIGTERM" });
      expect(await gone(grandchild)).toBe(false);
      expect(await waitGone(grandchild)).toBe(true);
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );
  it(
    "OP-EXACT-5: a command whose children escape its process group (setsid, a double fork, nohup) still leaves nothing running after its timeout",
    async () => {
      const command = [
        "setsid sleep 61 & echo $!",
        // A double fork: the grandchild is reparented to init, in a session of its own.
        "( setsid sleep 62 & echo $! ) ",
        "setsid nohup sleep 63 >/dev/null 2>&1 & echo $!",
        // The same from a script: fork, setsid, fork again; the grandchild says its pid.
        "python3 -c 'import os,sys,time\nif os.fork()==0:\n  os.setsid()\n  if os.fork()==0:\n    print(os.getpid(), flush=True); time.sleep(64)\n  os._exit(0)\nos.wait()'",
        "wait",
      ].join("\n");
      let id = "";
      // A kill before python3 started and printed is not this test: a loaded machine gets a longer timeout.
      const {
        result: { lines },
      } = await printedBeforeTimeout(
        (timeout_ms) =>
          exec({ command, timeout_ms }, (line) => {
            if (line.type === "start") id = line.id;
          }),
        printedPids(4),
      );
      expect(exitOf(lines)).toMatchObject({ timed_out: true });
      const pids = output(lines, "stdout")
        .split("\n")
        .filter((l) => /^\d+$/.test(l))
        .map(Number);
      expect(pids).toHaveLength(4);
      for (const pid of pids) expect(await waitGone(pid), `pid ${pid}`).toBe(true);
      expect(await markedProcesses(id)).toEqual([]);
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );
  it("OP-SBX-9: a command that ends normally may leave a process running (a server it started)", async () => {
    const { lines } = await exec({ command: "setsid sleep 30 >/dev/null 2>&1 & echo $!" });
    const pid = Number(output(lines, "stdout").trim());
    expect(exitOf(lines)).toMatchObject({ timed_out: false, exit_code: 0 });
    expect(await gone(pid)).toBe(false);
    process.kill(pid, "SIGKILL");
  });
  it("OP-SBX-9: POST /exec/:id/kill ends a running command and its children", async () => {
    let killed: Promise<Response> | undefined;
    let id = "";
    const { lines } = await exec({ command: "sleep 60 & echo $!; wait" }, (line) => {
      if (line.type === "start") id = line.id;
      if (line.type === "output") killed = fetch(`${base}/exec/${id}/kill`, { method: "POST", headers: auth });
    });
    expect((await killed!)?.status).toBe(200);
    expect(exitOf(lines)).toMatchObject({ killed: true, timed_out: false });
    expect(await waitGone(Number(output(lines, "stdout").trim()))).toBe(true);
    const unknown = await fetch(`${base}/exec/00000000-0000-0000-0000-000000000000/kill`, { method: "POST", headers: auth });
    expect(unknown.status).toBe(404);
  });
  it("OP-SBX-9: closing the request cancels the command and its children", async () => {
    const abort = new AbortController();
    let pid = 0;
    await exec(
      { command: "sleep 60 & echo $!; wait" },
      (line) => {
        if (line.type === "output") {
          pid = Number(line.data.trim());
          abort.abort();
        }
      },
      abort.signal,
    ).catch(() => undefined);
    expect(pid).toBeGreaterThan(0);
    expect(await waitGone(pid)).toBe(true);
  });
  it("OP-SBX-9: output past max_output_bytes is cut with a marker while the command runs to its end", async () => {
    const { lines } = await exec({ command: "head -c 5000 /dev/zero | tr '\\0' a; echo finished >&2; exit 4", max_output_bytes: 1000 });
    const stdout = output(lines, "stdout");
    expect(stdout.startsWith("a".repeat(1000))).toBe(true);
    expect(stdout.slice(1000)).toBe("\n[output truncated: limit of 1000 bytes reached; the command kept running]\n");
    expect(output(lines, "stderr")).toBe("");
    expect(exitOf(lines)).toMatchObject({ truncated: true, exit_code: 4 });
  });
  it("OP-SBX-9: output is UTF-8 text; a character cut off at the end arrives as U+FFFD", async () => {
    const { lines } = await exec({ command: "printf 'caf\\xc3\\xa9 \\xe2\\x82'" });
    expect(output(lines, "stdout")).toBe("café \uFFFD");
  });
  it("OP-SBX-9: commands run concurrently, each under its own id", async () => {
    const [a, b] = await Promise.all([exec({ command: "sleep 0.5; echo a" }), exec({ command: "sleep 0.5; echo b" })]);
    // Each started before the other ended.
    expect(b.lines[0]!.at).toBeLessThan(a.lines.at(-1)!.at);
    expect(a.lines[0]!.at).toBeLessThan(b.lines.at(-1)!.at);
    expect(output(a.lines, "stdout")).toBe("a\n");
    expect(output(b.lines, "stdout")).toBe("b\n");
    expect(exitOf(a.lines).id).not.toBe(exitOf(b.lines).id);
  });
});

describe("OP-SBX-9: files", () => {
  const url = (path: string) => `${base}/files?path=${encodeURIComponent(path)}`;

  it("OP-SBX-9: write creates parents, read returns the same bytes, a missing file is 404", async () => {
    const path = join(home, "deep/er/file.bin");
    const bytes = new Uint8Array([0, 1, 2, 255, 10, 13]);
    const put = await fetch(url(path), { method: "PUT", headers: auth, body: bytes });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ path, bytes: 6 });
    const got = await fetch(url(`${home}/deep/./er/../er/file.bin`), { headers: auth });
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
    const missing = await fetch(url(join(home, "nope.txt")), { headers: auth });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("file.not_found");
  });
  it("OP-SBX-9: relative paths and files over the limit are refused, leaving nothing behind", async () => {
    const relative = await fetch(url("home/agent/x"), { method: "PUT", headers: auth, body: "x" });
    expect(relative.status).toBe(400);
    expect(await relative.json()).toMatchObject({ error: { code: "path.relative" } });
    const big = join(home, "big.bin");
    const tooLarge = await fetch(url(big), { method: "PUT", headers: auth, body: new Uint8Array((1 << 20) + 1) });
    expect(tooLarge.status).toBe(413);
    const after = await fetch(url(big), { headers: auth });
    expect(after.status).toBe(404);
  });
  it("OP-SBX-9: move refuses to overwrite (409, both files intact), moves otherwise, delete removes", async () => {
    const from = join(home, "scripts/.tmp-a.py");
    const to = join(home, "scripts/a.py");
    await mkdir(join(home, "scripts"), { recursive: true });
    await writeFile(from, "new");
    await writeFile(to, "old");
    const move = (body: unknown) => fetch(`${base}/files/move`, { method: "POST", headers: auth, body: JSON.stringify(body) });
    const refused = await move({ from, to });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("file.exists");
    expect(await readFile(to, "utf8")).toBe("old");
    expect(await readFile(from, "utf8")).toBe("new");
    const deleted = await fetch(url(to), { method: "DELETE", headers: auth });
    expect(deleted.status).toBe(200);
    expect((await fetch(url(to), { method: "DELETE", headers: auth })).status).toBe(404);
    expect((await move({ from, to })).status).toBe(200);
    expect(await readFile(to, "utf8")).toBe("new");
    expect((await fetch(url(from), { headers: auth })).status).toBe(404);
    expect((await move({ from, to: join(home, "x") })).status).toBe(404);
    expect((await move({ from: "relative", to })).status).toBe(400);
  });
});

describe("SCRIPT-026: files list", () => {
  const list = (path: string) => fetch(`${base}/files/list?path=${encodeURIComponent(path)}`, { headers: auth });
  const sha256 = (text: string | Uint8Array) => createHash("sha256").update(text).digest("hex");

  it("SCRIPT-026: lists a directory's entries by name with type and size, and a SHA-256 for regular files up to 1 MiB", async () => {
    const root = join(dir, "listed");
    await mkdir(join(root, "sub"), { recursive: true });
    await writeFile(join(root, "b.py"), "print('b')\n");
    await writeFile(join(root, "a.py"), "");
    const big = new Uint8Array((1 << 20) + 1).fill(7);
    await writeFile(join(root, "big.bin"), big);
    await writeFile(join(root, "edge.bin"), big.subarray(1));
    await symlink(join(root, "a.py"), join(root, "link"));
    const res = await list(`${root}/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { path: string; entries: Array<{ name: string; type: string; bytes: number; sha256?: string }> };
    expect(body.path).toBe(root);
    expect(body.entries.map((e) => e.name)).toEqual(["a.py", "b.py", "big.bin", "edge.bin", "link", "sub"]);
    const byName = Object.fromEntries(body.entries.map((e) => [e.name, e]));
    expect(byName["a.py"]).toEqual({ name: "a.py", type: "file", bytes: 0, sha256: sha256("") });
    expect(byName["b.py"]).toEqual({ name: "b.py", type: "file", bytes: 11, sha256: sha256("print('b')\n") });
    expect(byName["edge.bin"]).toEqual({ name: "edge.bin", type: "file", bytes: 1 << 20, sha256: sha256(big.subarray(1)) });
    expect(byName["big.bin"]).toEqual({ name: "big.bin", type: "file", bytes: (1 << 20) + 1 });
    expect(byName.link).toMatchObject({ type: "other" });
    expect(byName.link!.sha256).toBeUndefined();
    expect(byName.sub).toMatchObject({ type: "dir" });
  });
  it("SCRIPT-026: an empty directory lists no entries; a missing one is 404, a file 409, a relative path 400", async () => {
    const empty = join(dir, "listed-empty");
    await mkdir(empty);
    expect(await (await list(empty)).json()).toEqual({ path: empty, entries: [] });
    const missing = await list(join(dir, "listed-nope"));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "path.not_found" } });
    await writeFile(join(dir, "listed-file"), "x");
    const file = await list(join(dir, "listed-file"));
    expect(file.status).toBe(409);
    expect(await file.json()).toMatchObject({ error: { code: "path.not_directory" } });
    const relative = await list("scripts");
    expect(relative.status).toBe(400);
    expect(await relative.json()).toMatchObject({ error: { code: "path.relative" } });
  });
  it("SBX-GUEST: listing needs the token", async () => {
    expect((await fetch(`${base}/files/list?path=${encodeURIComponent(dir)}`)).status).toBe(401);
  });
});

describe("OP-SBX-5: workspace size", () => {
  it("OP-SBX-5: counts file bytes under the home and skips the browser caches and .cache", async () => {
    const root = join(dir, "ws");
    const put = async (path: string, size: number) => {
      await mkdir(join(root, path, ".."), { recursive: true });
      await writeFile(join(root, path), new Uint8Array(size));
    };
    await put("a.txt", 1000);
    await put("sub/b.bin", 2000);
    await put(".browser/Default/Cookies", 300);
    await put(".browser/Default/Cache/Cache_Data/data_1", 5000);
    await put(".browser/Default/Code Cache/js/x", 5000);
    await put(".browser/GPUCache/y", 5000);
    await put(".cache/ms-playwright/z", 7000);
    await put("project/Cache/kept", 10);
    const res = await fetch(`${base}/workspace/size?path=${encodeURIComponent(root)}`, { headers: auth });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ path: root, bytes: 3310, files: 4 });
    const missing = await fetch(`${base}/workspace/size?path=${encodeURIComponent(join(root, "nope"))}`, { headers: auth });
    expect(missing.status).toBe(404);
  });
  it("OP-SBX-5: 10k files are measured quickly (under 2 s even on a loaded machine)", async () => {
    const root = join(dir, "many");
    for (let d = 0; d < 100; d++) {
      await mkdir(join(root, `d${d}`), { recursive: true });
      await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(join(root, `d${d}`, `f${f}`), "xy")));
    }
    const res = await fetch(`${base}/workspace/size?path=${encodeURIComponent(root)}`, { headers: auth });
    const body = (await res.json()) as { bytes: number; files: number; duration_ms: number };
    expect(body).toMatchObject({ bytes: 20_000, files: 10_000 });
    expect(body.duration_ms).toBeLessThan(2_000);
  }, 30_000);
  it("OP-SBX-5: without a path it measures the guest's home", async () => {
    await writeFile(join(home, "marker"), "12345");
    const res = await fetch(`${base}/workspace/size`, { headers: auth });
    expect(await res.json()).toMatchObject({ path: home });
  });
});
