import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import type { WarmPoolObject } from "./warm-pool";

const bindings = env as unknown as Env;

/** A pool object of its own (not an image's), with these boxes waiting, oldest first. */
async function poolWith(names: string[]) {
  const stub = bindings.WARM_POOL.get(bindings.WARM_POOL.idFromName(`test-${crypto.randomUUID()}`));
  await runInDurableObject(stub, async (_pool: WarmPoolObject, state) => {
    names.forEach((name, i) => {
      state.storage.sql.exec(`INSERT INTO warm_box (name, box, token, started_at) VALUES (?, 'lite', ?, ?)`, name, `token-${name}`, i);
    });
  });
  return stub;
}

describe("the warm pool's object", () => {
  it("SBX-034: boxes go out oldest first, each once, also to takings at the same instant", async () => {
    const pool = await poolWith(["warm:lite:a", "warm:lite:b", "warm:lite:c"]);
    const taken = await Promise.all(Array.from({ length: 5 }, () => pool.take("lite")));
    const names = taken.filter((box) => box !== null).map((box) => box.name);
    expect(names.sort()).toEqual(["warm:lite:a", "warm:lite:b", "warm:lite:c"]);
    expect(taken.filter((box) => box === null)).toHaveLength(2);
    expect(taken.find((box) => box?.name === "warm:lite:a")?.token).toBe("token-warm:lite:a");
    expect(await pool.size()).toEqual({});
  });

  it("SBX-002: with the pool off (no SANDBOX_WARM_LITE), an empty pool arms nothing and hands out nothing", async () => {
    const pool = await poolWith([]);
    expect(await pool.take("lite")).toBeNull();
    await runInDurableObject(pool, async (_pool: WarmPoolObject, state) => {
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });
});
