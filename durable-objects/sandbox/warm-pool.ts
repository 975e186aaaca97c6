/**
 * The warm pool (decision 0034): one object per image (`idFromName("lite" | "standard")`)
 * keeping SANDBOX_WARM_<BOX> boxes started, with no tenant in them: no secrets, no home, a
 * guest that serves nothing but its health and a claim (containers/guest/claim.ts). An
 * ensure takes one (`take`), claims it for its holder and gives it the holder's token,
 * environment and home; the pool forgets it at once and starts another behind it (the
 * alarm). A taken box never comes back: it is destroyed like any other when its holder is
 * done with it.
 *
 * @example const warm = await warmPool(env, "lite").take(); // { name, token } or null
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { logEvent } from "../../core/output/log";
import type { Box } from "../../core/sandbox/metadata";
import { warmBoxName, warmPoolSize, warmSetting } from "../../core/sandbox/warm";
import { boxContainer } from "./sandbox-container";

/** A started box waiting in the pool: its Container object's name and its guest's pool token. */
export interface WarmBox {
  name: string;
  token: string;
}

/**
 * How long after a taking the pool starts the replacement: the taken box's holder starts its
 * work at that moment, and a box starting beside it on the same host slows it (on 2 cores,
 * measured: docker starting the next box took the CPU the first command needed).
 */
const REFILL_AFTER_MS = 3_000;

/** How soon a failed start is tried again. */
const RETRY_MS = 30_000;

/** Warm boxes run with no activity; the Container's own sleep (2 h) would stop them: check them before then. */
const CHECK_MS = 30 * 60_000;

/** The pool of one image. */
export function warmPool(env: Env, box: Box): DurableObjectStub<WarmPoolObject> {
  return env.WARM_POOL.get(env.WARM_POOL.idFromName(box)) as DurableObjectStub<WarmPoolObject>;
}

/** How many boxes of this image the pool keeps; a bad setting keeps none and says why once per isolate. */
export function warmPoolTarget(env: Env, box: Box): number {
  // A local stack without a container engine says so; its pool would retry starts forever.
  if (env.SANDBOX_UNAVAILABLE_REASON) return 0;
  const name = warmSetting(box);
  const size = warmPoolSize(name, env[name], 0);
  if (typeof size === "number") return size;
  if (!warned.has(name)) logEvent("warn", { operation: "sandbox.warm_pool", box, error: size });
  warned.add(name);
  return 0;
}
const warned = new Set<string>();

let poolsWarmed = false;

/**
 * Starts the pools filling at an isolate's first request (after a deploy, or `npm start`), so
 * the first box an agent needs is already waiting; later requests of the isolate do nothing.
 */
export function warmPoolsOnce(env: Env, ctx: { waitUntil(promise: Promise<unknown>): void }): void {
  if (poolsWarmed) return;
  poolsWarmed = true;
  for (const box of ["lite", "standard"] as const) {
    if (warmPoolTarget(env, box) > 0)
      ctx.waitUntil(
        warmPool(env, box)
          .warm(box)
          .catch(() => {}),
      );
  }
}

export class WarmPoolObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS warm_box (name TEXT PRIMARY KEY, box TEXT NOT NULL, token TEXT NOT NULL, started_at INTEGER NOT NULL)`);
  }

  /**
   * The oldest waiting box, gone from the pool once returned, or null when none waits (the
   * caller starts one cold). Either way the pool refills behind it.
   */
  async take(box: Box): Promise<WarmBox | null> {
    const taken = this.ctx.storage.sql
      .exec<{ name: string; token: string }>(
        `DELETE FROM warm_box WHERE name = (SELECT name FROM warm_box WHERE box = ? ORDER BY started_at LIMIT 1) RETURNING name, token`,
        box,
      )
      .toArray()[0];
    await this.refillSoon(box, REFILL_AFTER_MS);
    return taken ? { name: taken.name, token: taken.token } : null;
  }

  /** Starts the pool filling (the first use of an image, a deploy); returns at once. */
  async warm(box: Box): Promise<void> {
    await this.refillSoon(box, 0);
  }

  /** How many boxes wait, per image. */
  async size(): Promise<Record<string, number>> {
    const rows = this.ctx.storage.sql.exec<{ box: string; n: number }>(`SELECT box, count(*) AS n FROM warm_box GROUP BY box`).toArray();
    return Object.fromEntries(rows.map((row) => [row.box, row.n]));
  }

  /** Fills the pool up to its target, dropping boxes that stopped meanwhile; one run at a time (an alarm). */
  override async alarm(): Promise<void> {
    const box = (await this.ctx.storage.get<Box>("box")) ?? "lite";
    const target = warmPoolTarget(this.env, box);
    for (const waiting of this.ctx.storage.sql.exec<{ name: string }>(`SELECT name FROM warm_box WHERE box = ?`, box).toArray()) {
      if (!(await boxContainer(this.env, box, waiting.name).isRunning())) this.ctx.storage.sql.exec(`DELETE FROM warm_box WHERE name = ?`, waiting.name);
    }
    let waiting = this.count(box);
    // Boxes beyond the target (it was lowered) go, newest first.
    while (waiting > target) {
      const newest = this.ctx.storage.sql
        .exec<{ name: string }>(
          `DELETE FROM warm_box WHERE name = (SELECT name FROM warm_box WHERE box = ? ORDER BY started_at DESC LIMIT 1) RETURNING name`,
          box,
        )
        .toArray()[0];
      if (newest)
        await boxContainer(this.env, box, newest.name)
          .destroyBox()
          .catch(() => {});
      waiting--;
    }
    try {
      while (this.count(box) < target) await this.startOne(box);
    } catch (error) {
      logEvent("warn", { operation: "sandbox.warm_pool", box, error: (error as Error).message.slice(0, 300) });
      await this.armBy(Date.now() + RETRY_MS);
      return;
    }
    // A taking during this run armed a sooner alarm for its refill: it stands.
    if (target > 0) await this.armBy(Date.now() + CHECK_MS);
  }

  /** The alarm at `due`, unless one is armed sooner. */
  private async armBy(due: number): Promise<void> {
    const armed = await this.ctx.storage.getAlarm();
    if (armed === null || armed > due) await this.ctx.storage.setAlarm(due);
  }

  private async startOne(box: Box): Promise<void> {
    const name = warmBoxName(box, crypto.randomUUID());
    const token = randomToken();
    const started = Date.now();
    // No environment at all: the holder's secrets and HOME arrive with the claim.
    const container = boxContainer(this.env, box, name);
    try {
      await container.boot({}, { GUEST_TOKEN: token, GUEST_WARM: "1" }, { "guilds-warm": box });
    } catch (error) {
      // Not in the table, so nothing would ever take or stop it.
      await container.destroyBox().catch(() => {});
      throw error;
    }
    this.ctx.storage.sql.exec(`INSERT INTO warm_box (name, box, token, started_at) VALUES (?, ?, ?, ?)`, name, box, token, Date.now());
    logEvent("info", { operation: "sandbox.warm_started", box, duration_ms: Date.now() - started });
  }

  private count(box: Box): number {
    return this.ctx.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM warm_box WHERE box = ?`, box).one().n;
  }

  /** Arms the alarm to fill the pool within `afterMs`, unless it is armed sooner already. */
  private async refillSoon(box: Box, afterMs: number): Promise<void> {
    await this.ctx.storage.put("box", box);
    const target = warmPoolTarget(this.env, box);
    // A pool that is off and empty has nothing to do; one just turned off still drops its boxes.
    if (target === 0 && this.count(box) === 0) return;
    if (this.count(box) !== target) await this.armBy(Date.now() + afterMs);
    else if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + CHECK_MS);
  }
}

/** A fresh bearer secret (256 bits, hex). */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
