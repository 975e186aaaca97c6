/**
 * The organisation's inbox of webhook deliveries (inbox-object.ts): acts on the organisation's
 * pending deliveries (core/db/forge-deliveries.ts) through `actOnDelivery`, in receipt order.
 * The rows are the queue, so nothing is lost when the object ends mid-way: an alarm drains
 * what is pending, and a delivery left `handling` longer than HANDLING_STALE_MS is claimed
 * again. Deliveries of one issue or pull request, and of one head commit (orderKey), are acted
 * on one after another; different ones side by side, at most SIDE_BY_SIDE at a time.
 */
import type { Env } from "../../bindings/env";
import { claimDelivery, DELIVERY_RETENTION_MS, type DeliveryRow, settleDelivery, sweepDeliveries, unhandledDeliveries } from "../../core/db/forge-deliveries";
import { planDeliveries } from "../../core/github/inbox-plan";
import type { ForgeDelivery, ForgeEvent } from "../../core/github/webhook-event";
import { orderKey } from "../../core/github/webhook-normalise";
import { describeError, logEvent } from "../../core/output/log";
import { platformRedactor } from "../../core/output/redaction";
import { IdleConnection } from "../common/idle-connection";
import { actOnDelivery } from "./act";

const ORGANISATION = "organisation";
/** When deliveries past their retention were last deleted (epoch ms). */
const SWEPT_AT = "swept_at";
const SWEEP_EVERY_MS = 24 * 60 * 60_000;
/** A delivery claimed this long ago and still `handling` was abandoned (its object ended): claim it again. */
export const HANDLING_STALE_MS = 5 * 60_000;
/** Deliveries of different issues, pull requests or commits acted on at once. */
export const SIDE_BY_SIDE = 8;
/** Unhandled rows read per look. */
const BATCH = 200;
/** Longest error text kept on a failed delivery. */
const MAX_ERROR_CHARS = 2000;

/** What the inbox reads of its object: the clock, which tests replace. */
export interface InboxHost {
  now(): number;
}

/** The door's event_data: the ForgeEvent and the origin the delivery reached. */
type StoredEvent = ForgeEvent & { origin?: string };

export class ForgeInbox {
  readonly #connection: IdleConnection;
  /** Deliveries being acted on here: row id → order key. */
  readonly #acting = new Map<string, string>();
  #looking: Promise<void> | null = null;
  #lookAgain = false;
  /** The last look's failure, for the alarm to throw (and be retried). */
  #failure: unknown = null;
  /** When the earliest delivery another object left `handling` becomes claimable again. */
  #reclaimAt: number | null = null;
  #idle: Array<() => void> = [];

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly host: InboxHost,
  ) {
    this.#connection = new IdleConnection(env, 5_000, () => this.#acting.size > 0);
  }

  async received(organisationId: string): Promise<void> {
    if ((await this.ctx.storage.get<string>(ORGANISATION)) !== organisationId) await this.ctx.storage.put(ORGANISATION, organisationId);
    // The alarm is the guarantee (it is retried, and it runs after a restart); the look now is the speed.
    const now = this.host.now();
    const alarm = await this.ctx.storage.getAlarm();
    if (alarm === null || alarm > now) await this.ctx.storage.setAlarm(now);
    this.#look(organisationId);
    await this.#sweep(organisationId);
  }

  /** Once a day: the deliveries past their retention go. A failure waits for the next day's try. */
  async #sweep(organisationId: string): Promise<void> {
    const now = this.host.now();
    if (((await this.ctx.storage.get<number>(SWEPT_AT)) ?? 0) > now - SWEEP_EVERY_MS) return;
    await this.ctx.storage.put(SWEPT_AT, now);
    const deleted = await this.#connection
      .use((db) => sweepDeliveries(db, organisationId, new Date(now - DELIVERY_RETENTION_MS)))
      .catch((error: unknown) => {
        logEvent("warn", { operation: "forge.deliveries_sweep", organisation_id: organisationId, ...describeError(error) }, platformRedactor(this.env));
        return 0;
      });
    if (deleted) logEvent("info", { operation: "forge.deliveries_swept", organisation_id: organisationId, deleted });
  }

  async alarm(): Promise<void> {
    const organisationId = await this.ctx.storage.get<string>(ORGANISATION);
    if (!organisationId) return;
    this.#failure = null;
    this.#look(organisationId);
    await this.#whenIdle();
    if (this.#failure) throw this.#failure;
    if (this.#reclaimAt !== null) await this.ctx.storage.setAlarm(this.#reclaimAt);
  }

  /** Looks for deliveries to act on now; one look at a time, another after it when asked meanwhile. */
  #look(organisationId: string): void {
    if (this.#looking) {
      this.#lookAgain = true;
      return;
    }
    this.#looking = (async () => {
      do {
        this.#lookAgain = false;
        await this.#startDue(organisationId);
      } while (this.#lookAgain);
    })()
      .catch((error: unknown) => {
        this.#failure = error;
        logEvent("warn", { operation: "forge.inbox_look_failed", organisation_id: organisationId, ...describeError(error) }, platformRedactor(this.env));
      })
      .finally(() => {
        this.#looking = null;
        this.#wake();
      });
  }

  /** Starts every delivery whose turn it is (core/github/inbox-plan.ts). */
  async #startDue(organisationId: string): Promise<void> {
    const rows = await this.#connection.use((db) => unhandledDeliveries(db, organisationId, BATCH));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const plan = planDeliveries(
      rows.map((row) => ({ id: row.id, key: keyOf(row), outcome: row.outcome, claimedAt: row.handledAt?.getTime() ?? null })),
      this.#acting,
      this.host.now(),
      { sideBySide: SIDE_BY_SIDE, staleMs: HANDLING_STALE_MS },
    );
    for (const id of plan.start) this.#start(organisationId, byId.get(id)!, keyOf(byId.get(id)!));
    this.#reclaimAt = plan.reclaimAt;
  }

  #start(organisationId: string, row: DeliveryRow, key: string): void {
    this.#acting.set(row.id, key);
    void this.#act(organisationId, row)
      .catch((error: unknown) => {
        // The outcome could not be written: the row stays handling and is claimed again later.
        this.#failure = error;
        logEvent("warn", { operation: "forge.delivery_unsettled", delivery_id: row.deliveryId, ...describeError(error) }, platformRedactor(this.env));
      })
      .finally(() => {
        this.#acting.delete(row.id);
        this.#look(organisationId);
        this.#wake();
      });
  }

  async #act(organisationId: string, row: DeliveryRow): Promise<void> {
    const claimedAt = this.host.now();
    const claimed = await this.#connection.use((db) => claimDelivery(db, row.id, new Date(claimedAt), new Date(claimedAt - HANDLING_STALE_MS)));
    if (!claimed) return;
    const { origin = "", ...event } = row.eventData as StoredEvent;
    const delivery: ForgeDelivery = { id: row.id, deliveryId: row.deliveryId, organisationId, event: event as ForgeEvent, origin };
    let result: Parameters<typeof settleDelivery>[2];
    try {
      result = await actOnDelivery({ env: this.env, db: this.#connection.db(), now: () => this.host.now() }, delivery);
    } catch (error) {
      const message = platformRedactor(this.env).redact(error instanceof Error ? error.message : String(error));
      result = { outcome: "failed", error: message.slice(0, MAX_ERROR_CHARS) || "failed" };
      logEvent("warn", { operation: "forge.delivery_failed", delivery_id: row.deliveryId, ...describeError(error) }, platformRedactor(this.env));
    }
    await this.#connection.use((db) => settleDelivery(db, row.id, result, new Date(this.host.now())));
  }

  #whenIdle(): Promise<void> {
    if (!this.#looking && this.#acting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #wake(): void {
    if (this.#looking || this.#acting.size > 0) return;
    const waiting = this.#idle;
    this.#idle = [];
    for (const resolve of waiting) resolve();
  }
}

/** The row's order key; a row whose event cannot be read is its own key. */
function keyOf(row: DeliveryRow): string {
  try {
    return orderKey(row.eventData as ForgeEvent);
  } catch {
    return row.id;
  }
}
