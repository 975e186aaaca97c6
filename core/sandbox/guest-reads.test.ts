/**
 * The guest client against a box that answers more than it should (8b): every read stops at
 * its cap and says so, whatever the box sends.
 */
import { describe, expect, it } from "vitest";
import { SandboxError } from "../tools/sandbox-error";
import { GuestClient } from "./guest-client";

/** A body that would send `total` bytes in `chunk`-byte pieces, counting what was pulled. */
function endless(piece: string, total: number) {
  const bytes = new TextEncoder().encode(piece);
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled >= total) return controller.close();
        seen.pulled += bytes.byteLength;
        controller.enqueue(bytes);
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

function hostileGuest(answer: (url: string, init?: RequestInit) => Response) {
  const calls: string[] = [];
  const client = new GuestClient({
    token: "t",
    fetch: async (url, init) => {
      calls.push(`${init?.method ?? "GET"} ${new URL(url).pathname}`);
      return answer(url, init);
    },
    caps: { execOutputBytes: 64 << 10, fileBytes: 32 << 10, jsonBytes: 32 << 10, errorBytes: 4 << 10 },
  });
  return { client, calls };
}

const MiB = 1 << 20;

describe("guest client: reads capped whatever the box sends", () => {
  it("OP-SBX-9 / HARDEN-3: command output past the cap is not read: the client stops, ends the command and says so", async () => {
    const frame = `${JSON.stringify({ type: "output", stream: "stdout", data: "x".repeat(4000) })}\n`;
    const { body, seen } = endless(frame, 8 * MiB);
    const { client, calls } = hostileGuest((url) => (url.includes("/kill") ? new Response("{}") : new Response(body, { headers: { "x-exec-id": "e1" } })));
    const result = await client.exec({ command: "yes", maxOutputBytes: 10_000 });
    expect(seen.pulled).toBeLessThan(64 << 10);
    expect(seen.cancelled).toBe(true);
    expect(result).toMatchObject({ truncated: true, killed: true, exitCode: null });
    expect(result.output.length).toBeLessThan(10_200);
    expect(result.output).toMatch(/\[the box sent more than 10000 bytes of output; the platform stopped reading there and ended the command\]$/);
    expect(calls).toContain("POST /exec/e1/kill");
  });

  it("OP-SBX-9 / HARDEN-3: one endless frame (no newline) is not buffered past the cap either", async () => {
    const { body, seen } = endless("y".repeat(8192), 8 * MiB);
    const { client } = hostileGuest((url) => (url.includes("/kill") ? new Response("{}") : new Response(body, { headers: { "x-exec-id": "e2" } })));
    const result = await client.exec({ command: "cat" });
    expect(seen.pulled).toBeLessThan(4 * MiB);
    expect(result.truncated).toBe(true);
  });

  it("OP-SBX-9 / SEC-018: a file body (the tokens file) past the cap rejects with sandbox.answer_too_large, read no further", async () => {
    const { body, seen } = endless("z".repeat(4096), 8 * MiB);
    const { client } = hostileGuest(() => new Response(body));
    const error = await client.getFile("/run/guilds/git-tokens.json", undefined, 16 << 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).code).toBe("sandbox.answer_too_large");
    expect((error as SandboxError).message).toBe("the box's answer to GET /files passed 16384 bytes; the platform stopped reading it there");
    expect(seen.pulled).toBeLessThanOrEqual((16 << 10) + 4096);
    expect(seen.cancelled).toBe(true);
  });

  it("OP-SBX-9 / HARDEN-3: the default file cap, a declared length past it, JSON answers and error bodies are bounded too", async () => {
    const big = endless("a".repeat(4096), 8 * MiB);
    const files = hostileGuest(() => new Response(big.body));
    expect(await files.client.getFile("/home/agent/big").catch((e: SandboxError) => e.code)).toBe("sandbox.answer_too_large");
    expect(big.seen.pulled).toBeLessThanOrEqual((32 << 10) + 4096);

    const declared = hostileGuest(() => new Response("{}", { headers: { "content-length": String(100 * MiB) } }));
    expect(await declared.client.listFiles("/home/agent").catch((e: SandboxError) => e.code)).toBe("sandbox.answer_too_large");

    const listing = endless(`{"path":"/","entries":[${'{"name":"a","type":"file","bytes":1},'.repeat(100)}`, 8 * MiB);
    const json = hostileGuest(() => new Response(listing.body));
    expect(await json.client.listFiles("/home/agent").catch((e: SandboxError) => e.code)).toBe("sandbox.answer_too_large");
    expect(listing.seen.pulled).toBeLessThan(64 << 10);

    const failing = endless("e".repeat(4096), 8 * MiB);
    const errors = hostileGuest(() => new Response(failing.body, { status: 500 }));
    const error = (await errors.client.getFile("/x").catch((e: unknown) => e)) as SandboxError;
    expect(error.code).toBe("sandbox.guest_error");
    expect(error.message.length).toBeLessThan(300);
    expect(failing.seen.pulled).toBeLessThanOrEqual((4 << 10) + 4096);
  });

  it("OP-SBX-9: an honest answer under the caps reads as before", async () => {
    const { client } = hostileGuest(() => new Response("hello"));
    expect(new TextDecoder().decode(await client.getFile("/home/agent/a.txt"))).toBe("hello");
  });
});
