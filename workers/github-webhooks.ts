/**
 * The GitHub App's webhook deliveries, `POST /api/github/webhooks` (issue 33): signed with the
 * App's webhook secret, not a bearer token. In order: 503 without GITHUB_WEBHOOK_SECRET; 413
 * past MAX_WEBHOOK_BYTES; 401 `github.signature_invalid` unless `X-Hub-Signature-256` is the
 * body's HMAC (nothing stored, nothing of the body logged); 400 without `X-GitHub-Event` or
 * `X-GitHub-Delivery`, or when the body is not JSON or lacks what its event needs. Then one
 * insert, the dedup (core/db/forge-deliveries.ts): a delivery id or a body stored before is
 * 200 `{duplicate: true}` and nothing else. An event the App does not subscribe to is kept
 * ignored and answered 204; one of an installation no organisation holds, or of a kind the
 * platform does not act on, is kept ignored (200); any other is kept pending, handed to the
 * organisation's inbox, and answered 202 before the inbox acts on it.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { forgeInbox } from "../bindings/objects";
import { type DeliveryFate, storeDelivery } from "../core/db/forge-deliveries";
import { deliveryFacts, forgeEventOf } from "../core/github/webhook-normalise";
import { bodySha256, verifyWebhookSignature } from "../core/github/webhook-signature";
import { readWithin, sizeLabel } from "../core/http/read-within";
import { describeError, logEvent } from "../core/output/log";
import { platformRedactor } from "../core/output/redaction";
import { WebhookAccepted, WebhookSettled } from "./api/github-deliveries.schema";
import type { AppEnv } from "./http/context";
import { failure, ok, operation } from "./http/contract";
import { ApiError } from "./http/errors";
import { database } from "./middleware";

export const GITHUB_WEBHOOK_ROUTE = "/api/github/webhooks";

/** Largest delivery read: far above what the events the platform acts on carry (GitHub's own cap is 25 MB). */
export const MAX_WEBHOOK_BYTES = 5 * 1024 * 1024;

const NOT_CONFIGURED = "github.webhooks_not_configured: the platform has no GITHUB_WEBHOOK_SECRET";

const header = (name: string, description: string) => ({ in: "header" as const, name, required: true, schema: { type: "string" as const }, description });

export const githubWebhookRoutes = new Hono<AppEnv>().post(
  "/",
  operation({
    operationId: "receiveGitHubWebhook",
    summary: "A delivery of the platform's GitHub App webhook, signed with GITHUB_WEBHOOK_SECRET; acted on by the organisation holding its installation",
    description:
      "The body is GitHub's JSON payload of the event, read as sent (the signature covers its exact bytes); it is not validated as API bodies are, only for what its event needs.",
    tag: "Repositories",
    public: true,
    parameters: [
      header("X-Hub-Signature-256", "sha256=<hex>: HMAC-SHA256 of the exact body under the App's webhook secret"),
      header("X-GitHub-Event", "The event's name (issues, issue_comment, pull_request_review, check_run, …)"),
      header("X-GitHub-Delivery", "The delivery's id: a delivery seen before is a duplicate"),
    ],
    responses: {
      200: ok(
        "A duplicate (the delivery id or the same body was received before: nothing done), or kept ignored (an installation no organisation holds, or an event kind the platform does not act on)",
        WebhookSettled,
      ),
      202: ok("Kept pending and handed to the organisation's inbox", WebhookAccepted),
      204: { description: "An event the App does not subscribe to: kept ignored" },
    },
    objects: true,
    errors: {
      400: failure(
        "A header is missing (github.header_missing, details.header), the body is not JSON (request.invalid_json) or lacks what its event needs (github.payload_invalid, details.field)",
      ),
      401: failure("X-Hub-Signature-256 is missing or not the body's signature (github.signature_invalid); nothing is stored"),
      413: failure(`The body is larger than ${sizeLabel(MAX_WEBHOOK_BYTES)} (request.too_large)`),
      503: failure(`${NOT_CONFIGURED}; or the database is unavailable (database.unavailable)`),
    },
  }),
  async (c, next) => {
    if (!c.env.GITHUB_WEBHOOK_SECRET)
      throw new ApiError(503, "github.webhooks_not_configured", "The platform has no GITHUB_WEBHOOK_SECRET: set the App's webhook secret");
    await next();
  },
  database,
  receive,
);

async function receive(c: Context<AppEnv>): Promise<Response> {
  const secret = c.env.GITHUB_WEBHOOK_SECRET!;
  if (Number(c.req.header("content-length")) > MAX_WEBHOOK_BYTES) throw tooLarge();
  const body = await readWithin(c.req.raw.body, MAX_WEBHOOK_BYTES);
  if (!body) throw tooLarge();
  if (!(await verifyWebhookSignature(secret, body, c.req.header("x-hub-signature-256")))) {
    throw new ApiError(401, "github.signature_invalid", "X-Hub-Signature-256 is missing or is not the body's signature under the App's webhook secret");
  }
  const eventName = c.req.header("x-github-event")?.trim();
  if (!eventName) throw missingHeader("X-GitHub-Event");
  const deliveryId = c.req.header("x-github-delivery")?.trim();
  if (!deliveryId) throw missingHeader("X-GitHub-Delivery");
  if (eventName.length > 100 || deliveryId.length > 200) throw new ApiError(400, "github.header_invalid", "X-GitHub-Event or X-GitHub-Delivery is too long");
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body));
  } catch {
    throw new ApiError(400, "request.invalid_json", "The body is not valid JSON");
  }
  const normalised = forgeEventOf(eventName, payload);
  if ("invalid" in normalised)
    throw new ApiError(400, "github.payload_invalid", `The ${eventName} payload is invalid: ${normalised.message}`, { field: normalised.invalid });

  const facts = deliveryFacts(payload);
  const row = {
    deliveryId,
    bodySha256: await bodySha256(body),
    installationId: facts.installationId,
    event: eventName,
    action: facts.action,
    repository: facts.repository,
    sender: facts.sender,
  };
  const origin = new URL(c.req.url).origin;
  const fate: DeliveryFate =
    "unknown" in normalised
      ? { outcome: "ignored", detail: `${eventName} is not an event the App subscribes to` }
      : "ignored" in normalised
        ? { outcome: "ignored", detail: normalised.ignored }
        : { outcome: "pending", eventData: { ...normalised.event, origin } };
  // One statement: the dedup, and the organisation holding the installation.
  const stored = await storeDelivery(c.get("db"), row, fate);
  if (!stored) return c.json({ duplicate: true }, 200);
  if ("unknown" in normalised) return c.body(null, 204);
  if (stored.outcome !== "pending" || !stored.organisationId) return c.json({ delivery_id: deliveryId, outcome: "ignored", detail: stored.detail ?? "" }, 200);
  // The row is the queue: should this call fail, the inbox's next alarm or delivery finds it.
  await forgeInbox(c.env, stored.organisationId)
    .received(stored.organisationId)
    .catch((error: unknown) =>
      logEvent("warn", { operation: "forge.inbox_unreachable", delivery_id: deliveryId, ...describeError(error) }, platformRedactor(c.env)),
    );
  return c.json({ delivery_id: deliveryId, outcome: "pending" }, 202);
}

const tooLarge = () => new ApiError(413, "request.too_large", `The body is larger than ${sizeLabel(MAX_WEBHOOK_BYTES)}`, { limit_bytes: MAX_WEBHOOK_BYTES });
const missingHeader = (name: string) => new ApiError(400, "github.header_missing", `The ${name} header is missing`, { header: name });
