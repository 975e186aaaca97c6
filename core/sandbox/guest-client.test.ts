/**
 * The guest client against the real guest, bundled and started as a process on the host
 * (as the images run it), over Node's fetch: the same calls a Container stub's fetch carries.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processAlive, type RunningGuest, startGuest, TEST_GUEST_TOKEN } from "../../test/unit/guest-processes";
import { PRINTED_BEFORE_TIMEOUT_TEST_MS, printedBeforeTimeout } from "../../test/unit/printed-before-timeout";
import { SandboxError } from "../tools/sandbox-error";
import { GuestClient } from "./guest-client";

let guest: RunningGuest;
let client: GuestClient;

beforeAll(async () => {
  guest = await startGuest({ GUEST_MAX_FILE_BYTES: String(1 << 20) });
  client = new GuestClient({ fetch: (url, init) => fetch(url, init), token: TEST_GUEST_TOKEN, baseUrl: guest.base });
}, 30_000);

afterAll(async () => {
  await guest?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxError);
  return error as SandboxError;
}

/** A fetch that records each request (its body read whole) and answers with `reply`. */
function recording(reply: (request: Request) => Response) {
  const seen: Array<{ method: string; url: string; headers: Headers; body: string }> = [];
  const fetchLike = async (url: string, init?: RequestInit) => {
    const request = new Request(url, init);
    const body = request.body ? await request.text() : "";
    seen.push({ method: request.method, url: request.url, headers: request.headers, body });
    return reply(request);
  };
  return { seen, fetchLike };
}

describe("guest client: exec", () => {
  it("OP-SBX-9: runs a command in the home and reports its exit code and interleaved output", async () => {
    const result = await client.exec({ command: "echo out; echo err >&2; sleep 0.1; echo again; pwd; exit 3" });
    expect(result.exitCode).toBe(3);
    expect(result.output).toBe(`out\nerr\nagain\n${guest.home}\n`);
    expect(result).toMatchObject({ timedOut: false, killed: false, truncated: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(100);
  });

  it("OP-SBX-9: cwd and env reach the command", async () => {
    const result = await client.exec({ command: 'pwd; echo "$GUILD_RUN_ID"', cwd: "/tmp", env: { GUILD_RUN_ID: "run-42" } });
    expect(result.output).toBe("/tmp\nrun-42\n");
    expect(result.exitCode).toBe(0);
  });

  it(
    "OP-SBX-9: a timeout ends the command and says so",
    async () => {
      // A kill before bash printed is not this test: a loaded machine gets a longer timeout.
      const { result } = await printedBeforeTimeout(
        (timeoutMs) => client.exec({ command: "echo started; sleep 30", timeoutMs }),
        (r) => r.output.length > 0,
      );
      expect(result.timedOut).toBe(true);
      expect(result.exitCode).toBeNull();
      expect(result.output).toBe("started\n");
    },
    PRINTED_BEFORE_TIMEOUT_TEST_MS,
  );

  it("OP-SBX-9: output past the limit is truncated with the guest's marker", async () => {
    const result = await client.exec({ command: "head -c 5000 /dev/zero | tr '\\0' x", maxOutputBytes: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output).toMatch(/^x{1000}\n?\[output truncated: limit of 1000 bytes reached/);
  });

  it("CANCEL-001: aborting the signal kills the command and its children mid-run", async () => {
    const controller = new AbortController();
    const pidFile = `${guest.home}/sleeper.pid`;
    const running = client.exec({ command: `sleep 60 & echo $! > ${pidFile}; echo ready; wait` }, controller.signal);
    let pid = 0;
    for (let i = 0; i < 100 && !pid; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pid = await client.getFile(pidFile).then(
        (bytes) => Number(new TextDecoder().decode(bytes).trim()),
        () => 0,
      );
    }
    expect(processAlive(pid)).toBe(true);
    const aborted = performance.now();
    controller.abort();
    const result = await running;
    expect(result.killed).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.output).toBe("ready\n");
    expect(performance.now() - aborted).toBeLessThan(3000);
    for (let i = 0; i < 40 && processAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processAlive(pid)).toBe(false);
  });

  it("CANCEL-001: a signal aborted before the call runs nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await client.exec({ command: `touch ${guest.home}/never` }, controller.signal);
    expect(result.killed).toBe(true);
    await expect(client.getFile(`${guest.home}/never`)).rejects.toMatchObject({ code: "file.not_found" });
  });

  it("OP-SBX-9: a missing cwd rejects with the guest's code before anything runs", async () => {
    const error = await rejection(client.exec({ command: "true", cwd: "/no/such/dir" }));
    expect(error.code).toBe("cwd.not_found");
    expect(error.status).toBe(400);
  });
});

describe("guest client: files, size, errors", () => {
  it("OP-SBX-9: puts and gets a file", async () => {
    const put = await client.putFile(`${guest.home}/notes/a.txt`, "hello file");
    expect(put).toEqual({ path: `${guest.home}/notes/a.txt`, bytes: 10 });
    expect(new TextDecoder().decode(await client.getFile(`${guest.home}/notes/a.txt`))).toBe("hello file");
  });

  it("OP-SBX-9: streams a file body up", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("part one, "));
        controller.enqueue(new TextEncoder().encode("part two"));
        controller.close();
      },
    });
    await client.putFile(`${guest.home}/streamed.txt`, body);
    expect(new TextDecoder().decode(await client.getFile(`${guest.home}/streamed.txt`))).toBe("part one, part two");
  });

  it("SCRIPT-024: a temp file is moved onto a script's path only after the old file is deleted; move never overwrites", async () => {
    const dir = `${guest.home}/scripts`;
    await client.putFile(`${dir}/fetch.py`, "print('old')\n");
    await client.putFile(`${dir}/.fetch.py.tmp`, "print('new')\n");
    const refused = await rejection(client.moveFile(`${dir}/.fetch.py.tmp`, `${dir}/fetch.py`));
    expect(refused).toMatchObject({ code: "file.exists", status: 409 });
    expect(new TextDecoder().decode(await client.getFile(`${dir}/fetch.py`))).toBe("print('old')\n");
    await client.deleteFile(`${dir}/fetch.py`);
    await client.moveFile(`${dir}/.fetch.py.tmp`, `${dir}/fetch.py`);
    expect(new TextDecoder().decode(await client.getFile(`${dir}/fetch.py`))).toBe("print('new')\n");
    expect((await rejection(client.getFile(`${dir}/.fetch.py.tmp`))).code).toBe("file.not_found");
    expect(await rejection(client.deleteFile(`${dir}/gone.py`))).toMatchObject({ code: "file.not_found", status: 404 });
    expect(await rejection(client.moveFile(`${dir}/gone.py`, `${dir}/other.py`))).toMatchObject({ code: "file.not_found", status: 404 });
    expect(await rejection(client.deleteFile(dir))).toMatchObject({ code: "path.is_directory", status: 409 });
  });

  it("SCRIPT-026: lists a directory with each small file's SHA-256, so leftovers and stale copies can be told apart", async () => {
    const dir = `${guest.home}/listing`;
    await client.putFile(`${dir}/keep.py`, "print(1)\n");
    await client.putFile(`${dir}/notes.txt`, "");
    await client.putFile(`${dir}/nested/x.py`, "x");
    const listed = await client.listFiles(dir);
    expect(listed).toEqual({
      path: dir,
      entries: [
        { name: "keep.py", type: "file", bytes: 9, sha256: createHash("sha256").update("print(1)\n").digest("hex") },
        { name: "nested", type: "dir", bytes: expect.any(Number) },
        { name: "notes.txt", type: "file", bytes: 0, sha256: createHash("sha256").update("").digest("hex") },
      ],
    });
    expect(await rejection(client.listFiles(`${dir}/missing`))).toMatchObject({ code: "path.not_found", status: 404 });
    expect(await rejection(client.listFiles(`${dir}/keep.py`))).toMatchObject({ code: "path.not_directory", status: 409 });
  });

  it("OP-SBX-5: measures the workspace", async () => {
    await client.putFile(`${guest.home}/sized/b.bin`, new Uint8Array(4096));
    const size = await client.workspaceSize(`${guest.home}/sized`);
    expect(size).toMatchObject({ path: `${guest.home}/sized`, bytes: 4096, files: 1 });
    expect((await client.workspaceSize()).path).toBe(guest.home);
  });

  it("OP-SBX-9: a missing file and a relative path reject with the guest's codes", async () => {
    expect((await rejection(client.getFile(`${guest.home}/missing`))).code).toBe("file.not_found");
    expect((await rejection(client.getFile("relative.txt"))).code).toBe("path.relative");
  });

  it("HARDEN: a wrong token rejects with auth.invalid", async () => {
    const wrong = new GuestClient({ fetch: (url, init) => fetch(url, init), token: "not-the-token-000000", baseUrl: guest.base });
    const error = await rejection(wrong.exec({ command: "true" }));
    expect(error.code).toBe("auth.invalid");
    expect(error.status).toBe(401);
  });

  it("HARDEN: a guest that does not answer is sandbox.unavailable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = new GuestClient({ fetch: (url, init) => fetch(url, init), token: TEST_GUEST_TOKEN, baseUrl: `http://127.0.0.1:${port}` });
    expect((await rejection(gone.exec({ command: "true" }))).code).toBe("sandbox.unavailable");
    expect(await gone.health()).toBe(false);
    expect(await client.health()).toBe(true);
  });

  it("HARDEN: an answer that is not the guest's error JSON keeps its status under sandbox.guest_error", async () => {
    const proxy = new GuestClient({ fetch: async () => new Response("container is starting", { status: 503 }), token: TEST_GUEST_TOKEN });
    const error = await rejection(proxy.workspaceSize());
    expect(error).toMatchObject({ code: "sandbox.guest_error", status: 503 });
    expect(error.message).toContain("container is starting");
  });
});

describe("guest client: home archive", () => {
  it("SBX-036: the home archive streams down as the guest sends it and up as a zstd body", async () => {
    const chunks = ["tar-", "bytes"];
    const { seen, fetchLike } = recording((request) =>
      request.method === "GET"
        ? new Response(new Blob(chunks).stream(), { headers: { "content-type": "application/zstd" } })
        : Response.json({ bytes: 9, files: 2 }),
    );
    const homes = new GuestClient({ fetch: fetchLike, token: TEST_GUEST_TOKEN });
    const archive = await homes.getHomeArchive();
    expect(await new Response(archive).text()).toBe("tar-bytes");
    const restored = await homes.putHomeArchive(new Blob(["tar-bytes"]).stream());
    expect(restored).toEqual({ bytes: 9, files: 2 });
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["GET http://guest/home/archive", "PUT http://guest/home/archive"]);
    expect(seen[1]!.body).toBe("tar-bytes");
    expect(seen[1]!.headers.get("content-type")).toBe("application/zstd");
    expect(seen.every((r) => r.headers.get("authorization") === `Bearer ${TEST_GUEST_TOKEN}`)).toBe(true);
  });

  it("SBX-036: a refused restore rejects with the guest's code", async () => {
    const { fetchLike } = recording(() => Response.json({ error: { code: "archive.invalid", message: "not a zstd tar" } }, { status: 400 }));
    const homes = new GuestClient({ fetch: fetchLike, token: TEST_GUEST_TOKEN });
    const error = await rejection(homes.putHomeArchive(new Blob(["junk"]).stream()));
    expect(error).toMatchObject({ code: "archive.invalid", status: 400, message: "not a zstd tar" });
  });
});

describe("guest client: claim", () => {
  it("SEC-005: a claim posts the agent's token, env and save address with the pool token, and resolves on 200", async () => {
    const { seen, fetchLike } = recording(() => Response.json({ claimed: true }));
    const pool = new GuestClient({ fetch: fetchLike, token: TEST_GUEST_TOKEN });
    const input = { token: "agent-token-0123456789", env: { API_KEY: "k-1" }, settings: { GUEST_HOME_SAVE_URL: "http://save/homes/a1" } };
    await pool.claim(input);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(["POST http://guest/claim"]);
    expect(JSON.parse(seen[0]!.body)).toEqual(input);
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${TEST_GUEST_TOKEN}`);
    expect(seen[0]!.headers.get("content-type")).toBe("application/json");
    await pool.claim({ token: "agent-token-0123456789", env: {} });
    expect(JSON.parse(seen[1]!.body)).toEqual({ token: "agent-token-0123456789", env: {} });
  });

  it("SEC-005: a refused claim rejects with the guest's code and status", async () => {
    const { fetchLike } = recording(() =>
      Response.json({ error: { code: "guest.already_claimed", message: "this guest has already been claimed" } }, { status: 409 }),
    );
    const pool = new GuestClient({ fetch: fetchLike, token: TEST_GUEST_TOKEN });
    const error = await rejection(pool.claim({ token: "agent-token-0123456789", env: {} }));
    expect(error).toMatchObject({ code: "guest.already_claimed", status: 409 });
  });
});
