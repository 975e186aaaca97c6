/**
 * The App's webhook deliveries, sent as GitHub sends them: a POST of the JSON payload to the
 * configured URL with `X-GitHub-Event`, `X-GitHub-Delivery` (a random UUID per delivery),
 * `X-Hub-Signature-256` (`sha256=` + the hex HMAC-SHA256 of the exact body with the secret)
 * and `User-Agent: GitHub-Hookshot/forge`. Sending never blocks the request that caused it;
 * deliveries of one repository go out in order; a network error is retried once. Every
 * delivery is kept (newest last, at most `KEEP`) for the admin API, with its answer's status
 * and how long it took, and can be sent again unchanged (GitHub's Redeliver).
 * The secret is never in a log or an answer: only the signature it makes is.
 *
 * @example
 *   const webhooks = new Webhooks({ url: "http://127.0.0.1:8787/api/github/webhooks", secret });
 *   webhooks.send("issues", "opened", "acme/app", 1001, payload);
 *   await webhooks.idle();
 */
import { createHmac, randomUUID } from "node:crypto";

export interface WebhookConfig {
  /** None: deliveries are made, signed and kept (the admin API shows them) but not sent. */
  url?: string;
  secret: string;
}

export interface Delivery {
  /** The forge's id of this attempt (a redelivery has its own). */
  id: number;
  /** X-GitHub-Delivery: the same for a redelivery as for the original. */
  guid: string;
  event: string;
  action: string | null;
  repository: string;
  installation_id: number;
  /** The exact body sent. */
  body: string;
  /** X-Hub-Signature-256 as sent (null when no secret was configured). */
  signature: string | null;
  /** Where it went; null when no URL was configured (kept, never sent). */
  url: string | null;
  /** The answer's HTTP status; null before an answer or after a network error. */
  status: number | null;
  /** A network error (after the retry), or why it was not sent. */
  error: string | null;
  duration_ms: number | null;
  delivered_at: string;
  redelivery: boolean;
}

/** Deliveries kept for the admin API. */
const KEEP = 5000;
const TIMEOUT_MS = 10_000;

export const signature = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

export class Webhooks {
  readonly deliveries: Delivery[] = [];
  private readonly queues = new Map<string, Promise<void>>();
  private nextId = 1;

  constructor(
    public config: WebhookConfig | null = null,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Queues the delivery and returns at once; it goes out after the repository's earlier ones. */
  send(event: string, action: string | null, repository: string, installationId: number, payload: unknown): Delivery {
    const body = JSON.stringify(payload);
    const config = this.config;
    const delivery = this.record({
      guid: randomUUID(),
      event,
      action,
      repository,
      installation_id: installationId,
      body,
      signature: config?.secret ? signature(config.secret, body) : null,
      url: config?.url ?? null,
      redelivery: false,
    });
    void this.enqueue(delivery);
    return delivery;
  }

  /**
   * The same body, X-GitHub-Delivery and signature again, to the URL configured now; resolves
   * once it has been answered (or has failed), after the repository's earlier deliveries.
   */
  async replay(id: number): Promise<Delivery | undefined> {
    const original = this.deliveries.find((d) => d.id === id);
    if (!original) return undefined;
    const delivery = this.record({ ...original, url: this.config?.url ?? null, redelivery: true });
    await this.enqueue(delivery);
    return delivery;
  }

  /** Settles when every delivery queued so far has been answered or has failed. */
  async idle(): Promise<void> {
    while (true) {
      const pending = [...this.queues.values()];
      await Promise.all(pending);
      if ([...this.queues.values()].every((queue) => pending.includes(queue))) return;
    }
  }

  private record(fields: Omit<Delivery, "id" | "status" | "error" | "duration_ms" | "delivered_at">): Delivery {
    const delivery: Delivery = { ...fields, id: this.nextId++, status: null, error: null, duration_ms: null, delivered_at: new Date().toISOString() };
    this.deliveries.push(delivery);
    if (this.deliveries.length > KEEP) this.deliveries.splice(0, this.deliveries.length - KEEP);
    return delivery;
  }

  private enqueue(delivery: Delivery): Promise<void> {
    if (!delivery.url) {
      delivery.error = "no webhook URL configured";
      return Promise.resolve();
    }
    const previous = this.queues.get(delivery.repository) ?? Promise.resolve();
    const next = previous.then(() => this.deliver(delivery));
    this.queues.set(delivery.repository, next);
    return next.then(() => {
      if (this.queues.get(delivery.repository) === next) this.queues.delete(delivery.repository);
    });
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "GitHub-Hookshot/forge",
      "x-github-event": delivery.event,
      "x-github-delivery": delivery.guid,
      "x-github-hook-installation-target-type": "integration",
    };
    if (delivery.signature) headers["x-hub-signature-256"] = delivery.signature;
    const started = Date.now();
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        const res = await fetch(delivery.url as string, { method: "POST", headers, body: delivery.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
        await res.arrayBuffer().catch(() => undefined);
        delivery.status = res.status;
        delivery.error = null;
        break;
      } catch (error) {
        delivery.error = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}` : String(error);
        if (attempt === 2) this.log(`webhook ${delivery.event} ${delivery.guid} to ${delivery.url} failed: ${delivery.error}`);
      }
    }
    delivery.duration_ms = Date.now() - started;
  }
}
