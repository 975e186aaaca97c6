import { env } from "cloudflare:workers";
import type { Env } from "../../bindings/env";
import { signWebhook } from "../../core/github/webhook-signature";
import { call } from "./seed";

/** The App's webhook secret the workers tests run with (vitest.config.ts). */
export const WEBHOOK_SECRET = (env as unknown as Env).GITHUB_WEBHOOK_SECRET!;

export interface DeliverOptions {
  /** X-GitHub-Delivery; a fresh uuid by default. */
  deliveryId?: string;
  /** The X-Hub-Signature-256 sent; by default the body's signature under WEBHOOK_SECRET; null: none. */
  signature?: string | null;
  /** Headers left out (X-GitHub-Event, X-GitHub-Delivery). */
  omit?: string[];
}

/**
 * A delivery of the App's webhook as GitHub sends it: the exact body, signed, with the event
 * and delivery headers. The answer as `call` gives it.
 *
 * @example const res = await deliver("issues", { action: "closed", ... }); res.status // 200
 */
export async function deliver(event: string, payload: unknown, options: DeliverOptions = {}) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const deliveryId = options.deliveryId ?? crypto.randomUUID();
  const signature = options.signature === undefined ? await signWebhook(WEBHOOK_SECRET, body) : options.signature;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "GitHub-Hookshot/044aadd",
    "x-github-event": event,
    "x-github-delivery": deliveryId,
    "x-github-hook-installation-target-type": "integration",
  };
  if (signature !== null) headers["x-hub-signature-256"] = signature;
  for (const name of options.omit ?? []) delete headers[name.toLowerCase()];
  const res = await call("POST", "/api/github/webhooks", { body, headers });
  return { ...res, deliveryId };
}

/** A payload of `event` in the shape GitHub sends it, for the installation, repository and sender given. */
export function payloadOf(installationId: number, repository: string, extra: Record<string, unknown>, sender = { login: "octocat", id: 1 }) {
  return {
    ...extra,
    installation: { id: installationId },
    repository: { full_name: repository, name: repository.split("/")[1] },
    sender: { ...sender, type: "User" },
  };
}

/** An issue as GitHub's payloads carry it. */
export const issueOf = (repository: string, number: number, extra: Record<string, unknown> = {}) => ({
  number,
  title: `Issue ${number}`,
  body: "Steps to reproduce",
  html_url: `https://github.com/${repository}/issues/${number}`,
  labels: [],
  state: "open",
  ...extra,
});
