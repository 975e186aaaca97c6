import * as z from "zod";
import { ListQuery, pageOf } from "../http/page.schema";

/** The GitHub App's webhook deliveries on the wire (issue 33): the door's answers and the deliveries list. */

export const DELIVERY_OUTCOMES = ["pending", "handling", "accepted", "ignored", "failed"] as const;

export const WebhookAccepted = z
  .object({ delivery_id: z.string().describe("X-GitHub-Delivery"), outcome: z.literal("pending") })
  .meta({ id: "WebhookAccepted" });

export const WebhookIgnored = z
  .object({ delivery_id: z.string(), outcome: z.literal("ignored"), detail: z.string().describe("Why nothing is done, e.g. installation not connected") })
  .meta({ id: "WebhookIgnored" });

export const WebhookDuplicate = z.object({ duplicate: z.literal(true) }).meta({ id: "WebhookDuplicate" });

/** The 200 answers: kept ignored, or a duplicate. */
export const WebhookSettled = z.union([WebhookIgnored, WebhookDuplicate]).meta({ id: "WebhookSettled" });

export const GitHubDelivery = z
  .object({
    id: z.uuid(),
    delivery_id: z.string().describe("X-GitHub-Delivery"),
    event: z.string().describe("X-GitHub-Event: issues, issue_comment, pull_request_review, check_run, …"),
    action: z.string().nullable(),
    repository: z.string().nullable().describe("owner/repo, when the event names one"),
    sender: z.string().nullable().describe("The GitHub login of who caused it"),
    outcome: z.enum(DELIVERY_OUTCOMES).describe("pending → handling → accepted | ignored | failed"),
    detail: z.string().nullable().describe("What was done (the task filed, the message sent) or why nothing was"),
    error: z.string().nullable().describe("Why acting on it failed (outcome failed)"),
    received_at: z.iso.datetime(),
    handled_at: z.iso.datetime().nullable(),
  })
  .meta({ id: "GitHubDelivery" });

export const GitHubDeliveryPage = pageOf(GitHubDelivery, "GitHubDeliveryPage");

export const GitHubDeliveryListQuery = ListQuery.extend({
  repository: z.string().min(1).max(200).optional().describe("Only this repository's (owner/repo)"),
  outcome: z.enum(DELIVERY_OUTCOMES).optional().describe("Only deliveries with this outcome"),
});
