import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { homeKey, SandboxHomes } from "./home";

/** Far above every archive here but the ones meant to pass it. */
const CAP = 64 * 1024 * 1024;

const bucket = () => (env as unknown as Env).SANDBOX_HOMES;

/** A stream of `size` pseudo-random bytes in chunks of uneven sizes, as a guest would send them. */
function archive(size: number, seed: number): { stream: ReadableStream<Uint8Array>; bytes: Uint8Array } {
  const bytes = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= size) return controller.close();
      const length = Math.min(size - offset, 65_536 + (Math.floor(offset / 7) % 300_000));
      controller.enqueue(bytes.slice(offset, offset + length));
      offset += length;
    },
  });
  return { stream, bytes };
}

/** Compared by digest: a deep equality of megabytes would print megabytes. */
async function digest(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function stored(agentId: string): Promise<string> {
  const opened = await new SandboxHomes(bucket()).open(agentId);
  expect(opened).not.toBeNull();
  const read = new Uint8Array(await new Response(opened!.body).arrayBuffer());
  expect(read.byteLength).toBe(opened!.size);
  return digest(read);
}

describe("home archives in R2", () => {
  it("SBX-036: a home larger than one part is stored whole from a stream of uneven chunks and read back as it was", async () => {
    const agentId = crypto.randomUUID();
    const { stream, bytes } = archive(19 * 1024 * 1024 + 123, 7);
    expect(await new SandboxHomes(bucket()).save(agentId, stream, CAP)).toBe(bytes.byteLength);
    expect(await stored(agentId)).toBe(await digest(bytes));
  });

  it("SBX-036: a small home is one object; a later save replaces it; a deleted agent's home goes", async () => {
    const agentId = crypto.randomUUID();
    const homes = new SandboxHomes(bucket());
    await homes.save(agentId, archive(1000, 1).stream, CAP);
    const second = archive(8 * 1024 * 1024, 2);
    await homes.save(agentId, second.stream, CAP);
    expect(await stored(agentId)).toBe(await digest(second.bytes));
    await homes.remove(agentId);
    expect(await bucket().head(homeKey(agentId))).toBeNull();
    expect(await homes.open(crypto.randomUUID())).toBeNull();
  });

  it("SBX-040: an archive past the cap is refused with workspace.full and the saved home stays as it was, in one part or many", async () => {
    const agentId = crypto.randomUUID();
    const homes = new SandboxHomes(bucket());
    const first = archive(4000, 3);
    await homes.save(agentId, first.stream, CAP);
    for (const [size, cap] of [
      [5000, 4096],
      [20 * 1024 * 1024, 17 * 1024 * 1024],
    ] as const) {
      await expect(homes.save(agentId, archive(size, 4).stream, cap)).rejects.toMatchObject({ code: "workspace.full" });
      expect(await stored(agentId)).toBe(await digest(first.bytes));
    }
  });

  it("SBX-036: a stream that breaks part-way (the box cut it) stores nothing over the saved home", async () => {
    const agentId = crypto.randomUUID();
    const homes = new SandboxHomes(bucket());
    const first = archive(4000, 5);
    await homes.save(agentId, first.stream, CAP);
    for (const before of [1000, 9 * 1024 * 1024]) {
      let sent = 0;
      const broken = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= before) return controller.error(new Error("connection reset"));
          controller.enqueue(new Uint8Array(Math.min(65_536, before - sent)));
          sent += Math.min(65_536, before - sent);
        },
      });
      await expect(homes.save(agentId, broken, CAP)).rejects.toThrow("connection reset");
      expect(await stored(agentId)).toBe(await digest(first.bytes));
    }
  });

  it("TASK-010 / TASK-036: a volume of its own comes first; without one, the repository's seed within the cap; the seed is saved and dated under its own key", async () => {
    const repository = crypto.randomUUID();
    const seedKey = `volumes/${repository}/seed.tar.zst`;
    const volumeKey = (task: string) => `volumes/${repository}/task-${task}.tar.zst`;
    const volumes = new SandboxHomes(bucket(), volumeKey, () => seedKey);
    expect(await volumes.open("a-1", CAP)).toBeNull();
    expect(await volumes.seedSavedAt()).toBeNull();

    const seed = archive(3000, 3);
    expect(await volumes.saveSeed(seed.stream, CAP)).toBe(3000);
    expect((await volumes.seedSavedAt())?.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const seeded = await volumes.open("a-1", CAP);
    expect(seeded).toMatchObject({ seed: true, size: 3000 });
    expect(await digest(new Uint8Array(await new Response(seeded!.body).arrayBuffer()))).toBe(await digest(seed.bytes));
    // A seed over the box's cap is not offered: the box starts empty and clones.
    expect(await volumes.open("a-1", 2999)).toBeNull();

    const own = archive(500, 4);
    await volumes.save("a-1", own.stream, CAP);
    const opened = await volumes.open("a-1", CAP);
    expect(opened).toMatchObject({ seed: false, size: 500 });
    await opened!.body.cancel();
    // Without a seed key (an agent's home), nothing stands in for a missing archive.
    expect(await new SandboxHomes(bucket(), volumeKey).saveSeed(archive(10, 5).stream, CAP)).toBeNull();
    expect(await new SandboxHomes(bucket(), volumeKey).open("a-2", CAP)).toBeNull();
  });
});
