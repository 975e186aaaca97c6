/**
 * The warm pool's claim (claim.ts): the body's checks alone, then real guest processes
 * started warm (GUEST_WARM "1", the pool token) and claimed over HTTP.
 */
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseClaim } from "./claim";
import { type ExecLine, LineReader } from "./ndjson";
import { auth, bundleGuest, type RunningGuest, startGuest, TOKEN, tempDir } from "./test-support/guest-process";

const AGENT_TOKEN = "agent-token-0123456789abcdef";
const SECRET = "sk-live-DO-NOT-ECHO-4242";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("SEC-005: parseClaim", () => {
  it("SEC-005: a claim of a token, an env of strings and a save address is accepted as sent", () => {
    expect(parseClaim({ token: AGENT_TOKEN, env: { API_KEY: SECRET, _x1: "" }, settings: { GUEST_HOME_SAVE_URL: "https://save.example/homes/a1" } })).toEqual({
      ok: true,
      claim: { token: AGENT_TOKEN, env: { API_KEY: SECRET, _x1: "" }, saveUrl: "https://save.example/homes/a1" },
    });
    expect(parseClaim({ token: AGENT_TOKEN, env: {}, settings: {} })).toEqual({ ok: true, claim: { token: AGENT_TOKEN, env: {} } });
  });

  it("SEC-006: each bad claim names its field and never holds a value", () => {
    const cases: Array<[unknown, string]> = [
      [null, "JSON object"],
      [[AGENT_TOKEN], "JSON object"],
      [{ env: {} }, "token"],
      [{ token: "fifteen-chars-x", env: {} }, "token"],
      [{ token: `${AGENT_TOKEN}\n`, env: {} }, "token"],
      [{ token: AGENT_TOKEN }, "env must be an object"],
      [{ token: AGENT_TOKEN, env: [SECRET] }, "env must be an object"],
      [{ token: AGENT_TOKEN, env: { API_KEY: 42 } }, "env API_KEY must be a string"],
      [{ token: AGENT_TOKEN, env: { "1ST": SECRET } }, 'env name "1ST"'],
      [{ token: AGENT_TOKEN, env: { "A-B": SECRET } }, 'env name "A-B"'],
      [JSON.parse(`{"token":"${AGENT_TOKEN}","env":{"__proto__":"${SECRET}"}}`), 'env name "__proto__"'],
      [{ token: AGENT_TOKEN, env: { GUEST_TOKEN: SECRET } }, "env name GUEST_TOKEN is reserved"],
      [{ token: AGENT_TOKEN, env: { API_KEY: `${SECRET}\0tail` } }, "env API_KEY holds a NUL byte"],
      [{ token: AGENT_TOKEN, env: {}, settings: { GUEST_TOKEN: SECRET } }, "settings.GUEST_TOKEN"],
      [{ token: AGENT_TOKEN, env: {}, settings: { GUEST_HOME_SAVE_URL: `file:///${SECRET}` } }, "settings.GUEST_HOME_SAVE_URL must be an http(s) URL"],
      [{ token: AGENT_TOKEN, env: {}, settings: { GUEST_HOME_SAVE_URL: SECRET } }, "settings.GUEST_HOME_SAVE_URL"],
      [{ token: AGENT_TOKEN, env: {}, setting: {} }, 'unknown field "setting"'],
    ];
    for (const [body, named] of cases) {
      const parsed = parseClaim(body);
      expect(parsed.ok, JSON.stringify(body)).toBe(false);
      const { message } = parsed as { message: string };
      expect(message).toContain(named);
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(AGENT_TOKEN);
    }
  });
});

let temp: Awaited<ReturnType<typeof tempDir>>;
let bundle: string;
const started: RunningGuest[] = [];

beforeAll(async () => {
  temp = await tempDir("guest-claim-");
  bundle = await bundleGuest(temp.dir);
}, 30_000);

afterAll(async () => {
  await Promise.all(started.map((guest) => guest.stop()));
  await temp?.remove();
});

/** A guest as the pool starts one: warm, the pool token (TOKEN), no secrets in its environment. */
async function guestOf(settings: Record<string, string>, env: Record<string, string> = {}): Promise<RunningGuest> {
  const guest = await startGuest(bundle, temp.dir, settings, env);
  started.push(guest);
  return guest;
}

function claim(guest: RunningGuest, body: unknown, token = TOKEN): Promise<Response> {
  return fetch(`${guest.base}/claim`, { method: "POST", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** Runs a command; its stdout when it ran, else the refusal's status and code. */
async function run(guest: RunningGuest, command: string, token: string): Promise<{ status: number; stdout?: string; code?: string }> {
  const res = await fetch(`${guest.base}/exec`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ command }),
  });
  if (res.status !== 200) return { status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code };
  const reader = new LineReader();
  const lines = reader.push(`${await res.text()}\n`).map((text) => JSON.parse(text) as ExecLine);
  const stdout = lines.map((line) => (line.type === "output" && line.stream === "stdout" ? line.data : "")).join("");
  return { status: 200, stdout };
}

async function errorOf(res: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  return { status: res.status, ...body.error };
}

describe("SEC-005: a warm guest's claim", () => {
  it("SEC-005: a warm box's claim gives commands the agent's secrets, over the box's own environment", async () => {
    const guest = await guestOf({ GUEST_WARM: "1" }, { BOX_BASE: "from-the-image" });
    const res = await claim(guest, { token: AGENT_TOKEN, env: { API_KEY: SECRET, OTHER: "two words" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ claimed: true });
    expect(await run(guest, 'echo "$API_KEY|$OTHER|$BOX_BASE"', AGENT_TOKEN)).toEqual({ status: 200, stdout: `${SECRET}|two words|from-the-image\n` });
  });

  it("OP-SBX-9: after the claim the guest accepts only the agent's token; the pool's gets 401", async () => {
    const guest = await guestOf({ GUEST_WARM: "1" });
    expect((await claim(guest, { token: AGENT_TOKEN, env: {} })).status).toBe(200);
    expect(await run(guest, "echo ok", TOKEN)).toEqual({ status: 401, code: "auth.invalid" });
    expect((await fetch(`${guest.base}/files/list?path=${guest.home}`, { headers: auth })).status).toBe(401);
    expect(await run(guest, "echo ok", AGENT_TOKEN)).toEqual({ status: 200, stdout: "ok\n" });
  });

  it("SEC-005: of two claims at the same instant one wins; the other, and any later one, is 409 and changes nothing", async () => {
    const guest = await guestOf({ GUEST_WARM: "1" });
    const bodies = ["a", "b"].map((who) => ({ token: `${AGENT_TOKEN}-${who}`, env: { WHO: who } }));
    // Both bodies are held back until both requests are in, so each passes the guest's first
    // check and the race is decided after the bodies are read, where it is closest. (A first
    // blank sends the headers: fetch waits for a body's first chunk before it sends them.)
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = (body: unknown) =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(" "));
          await gate;
          controller.enqueue(new TextEncoder().encode(JSON.stringify(body)));
          controller.close();
        },
      });
    const claims = Promise.all(
      bodies.map((body) => fetch(`${guest.base}/claim`, { method: "POST", headers: auth, body: held(body), duplex: "half" } as RequestInit)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    const answers = await claims;
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? bodies[0]! : bodies[1]!;
    const loser = winner === bodies[0] ? bodies[1]! : bodies[0]!;
    const lost = await errorOf(answers.find((res) => res.status === 409)!);
    expect(lost.code).toBe("guest.already_claimed");

    const again = await claim(guest, { token: `${AGENT_TOKEN}-c`, env: { WHO: "c" } }, winner.token);
    expect(await errorOf(again)).toMatchObject({ status: 409, code: "guest.already_claimed" });
    expect((await errorOf(await claim(guest, { token: `${AGENT_TOKEN}-d`, env: { WHO: "d" } }))).code).toBe("guest.already_claimed");
    expect((await claim(guest, { token: `${AGENT_TOKEN}-e`, env: {} }, "not-any-token-000000")).status).toBe(401);

    expect(await run(guest, 'echo "$WHO"', winner.token)).toEqual({ status: 200, stdout: `${winner.env.WHO}\n` });
    for (const token of [loser.token, `${AGENT_TOKEN}-c`, `${AGENT_TOKEN}-d`]) expect((await run(guest, "true", token)).status).toBe(401);
  });

  it("SBX-036: the shutdown save pushes the home to the claim's GUEST_HOME_SAVE_URL", async () => {
    const received: string[] = [];
    const server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      req.resume();
      req.on("end", () => res.end("{}"));
    }).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const guest = await guestOf({ GUEST_WARM: "1" });
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/homes/a1`;
      expect((await claim(guest, { token: AGENT_TOKEN, env: {}, settings: { GUEST_HOME_SAVE_URL: url } })).status).toBe(200);
      expect((await fetch(`${guest.base}/home/ready`, { method: "POST", headers: bearer(AGENT_TOKEN) })).status).toBe(200);
      await guest.stop();
      started.splice(started.indexOf(guest), 1);
      expect(received).toEqual(["PUT /homes/a1"]);
    } finally {
      server.close();
    }
  });
});

describe("SEC-005: before and without a claim", () => {
  let unclaimed: RunningGuest;
  beforeAll(async () => {
    unclaimed = await guestOf({ GUEST_WARM: "1" });
  }, 30_000);

  it("OP-SBX-9: an unclaimed warm guest answers /health but runs nothing and hands out no file (409 guest.unclaimed)", async () => {
    expect(await (await fetch(`${unclaimed.base}/health`)).json()).toEqual({ ok: true, version: "1" });
    expect(await run(unclaimed, "touch /tmp/should-not-exist", TOKEN)).toEqual({ status: 409, code: "guest.unclaimed" });
    for (const [method, path] of [
      ["GET", `/files?path=${unclaimed.home}/x`],
      ["GET", "/home/archive"],
      ["POST", "/services/start"],
      ["GET", "/no/such/route"],
    ] as const) {
      expect((await errorOf(await fetch(`${unclaimed.base}${path}`, { method, headers: auth }))).code).toBe("guest.unclaimed");
    }
    // The token is checked first: without it the answer says nothing of the claim.
    expect(await run(unclaimed, "true", AGENT_TOKEN)).toEqual({ status: 401, code: "auth.invalid" });
    expect((await claim(unclaimed, { token: AGENT_TOKEN, env: {} }, AGENT_TOKEN)).status).toBe(401);
  });

  it("SEC-006: bad claim bodies are 400 guest.invalid_claim naming the field, never echoing a value, and claim nothing", async () => {
    const post = (body: string) => fetch(`${unclaimed.base}/claim`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body });
    const cases: Array<[string, string]> = [
      [`{"token":"${AGENT_TOKEN}","env":{"API_KEY":"${SECRET}"`, "JSON"],
      [JSON.stringify({ token: "short", env: {} }), "token"],
      [JSON.stringify({ token: AGENT_TOKEN, env: { API_KEY: [SECRET] } }), "env API_KEY"],
      [JSON.stringify({ token: AGENT_TOKEN, env: { "BAD NAME": SECRET } }), "BAD NAME"],
      [JSON.stringify({ token: AGENT_TOKEN, env: { GUEST_HOME: SECRET } }), "GUEST_HOME"],
      [JSON.stringify({ token: AGENT_TOKEN, env: { API_KEY: `${SECRET}\0` } }), "env API_KEY holds a NUL byte"],
      [JSON.stringify({ token: AGENT_TOKEN, env: {}, settings: { GUEST_VOLUME: SECRET } }), "settings.GUEST_VOLUME"],
      [JSON.stringify({ token: AGENT_TOKEN, env: {}, settings: { GUEST_HOME_SAVE_URL: `ftp://${SECRET}` } }), "GUEST_HOME_SAVE_URL"],
    ];
    for (const [body, named] of cases) {
      const error = await errorOf(await post(body));
      expect(error, body).toMatchObject({ status: 400, code: "guest.invalid_claim" });
      expect(error.message).toContain(named);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(AGENT_TOKEN);
    }
    expect(await run(unclaimed, "true", TOKEN)).toEqual({ status: 409, code: "guest.unclaimed" });
    expect(await run(unclaimed, "true", AGENT_TOKEN)).toEqual({ status: 401, code: "auth.invalid" });
  });

  it("SEC-005: a guest started without GUEST_WARM answers /claim with 409 guest.not_warm and keeps its token", async () => {
    const cold = await guestOf({});
    const refused = await errorOf(await claim(cold, { token: AGENT_TOKEN, env: { API_KEY: SECRET } }));
    expect(refused).toMatchObject({ status: 409, code: "guest.not_warm" });
    expect((await claim(cold, { token: AGENT_TOKEN, env: {} }, AGENT_TOKEN)).status).toBe(401);
    expect(await run(cold, 'echo "[$API_KEY]"', TOKEN)).toEqual({ status: 200, stdout: "[]\n" });
    expect(await run(cold, "true", AGENT_TOKEN)).toEqual({ status: 401, code: "auth.invalid" });
  });
});
