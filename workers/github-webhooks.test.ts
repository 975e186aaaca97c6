import { createExecutionContext, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../bindings/env";
import { forgeInbox } from "../bindings/objects";
import { forgeDeliveries } from "../core/db/schema";
import { signWebhook } from "../core/github/webhook-signature";
import type { ForgeInboxObject } from "../durable-objects/forge/inbox-object";
import { claim } from "../test/workerd/github";
import { call, seedGuild } from "../test/workerd/seed";
import { withDb } from "../test/workerd/tasks";
import { deliver, issueOf, payloadOf, WEBHOOK_SECRET } from "../test/workerd/webhooks";
import { app } from "./app";
import { MAX_WEBHOOK_BYTES } from "./github-webhooks";

/**
 * The GitHub App's webhook door (issue 33): signed deliveries only, each handled once, answered
 * at once, acted on by the organisation's inbox; deliveries listed per organisation.
 */

const testEnv = env as unknown as Env;
type Delivery = {
  id: string;
  delivery_id: string;
  event: string;
  action: string | null;
  repository: string | null;
  sender: string | null;
  outcome: string;
  detail: string | null;
  error: string | null;
  received_at: string;
  handled_at: string | null;
};

const listed = async (token: string, query = "") => {
  const res = await call("GET", `/api/github/deliveries?limit=200${query}`, { token });
  expect(res.status).toBe(200);
  return res.json.data as Delivery[];
};
const rowsOf = (deliveryIds: string[]) => withDb((db) => db.select().from(forgeDeliveries).where(inArray(forgeDeliveries.deliveryId, deliveryIds)));
const handled = (outcome: string) => !["pending", "handling"].includes(outcome);

describe("the GitHub App's webhook door", () => {
  let ours: { token: string; organisationId: string; installationId: number };
  let theirs: { token: string; organisationId: string };
  const repo = "hooks-acme/app";
  let n = 100;
  /** A payload for our installation on a fresh issue number, so no two tests share a body. */
  const closed = () => payloadOf(ours.installationId, repo, { action: "closed", issue: issueOf(repo, ++n) });

  beforeAll(async () => {
    const a = await seedGuild("Webhooks A");
    theirs = await seedGuild("Webhooks B");
    const claimed = await claim(a.token, "hooks-acme", ["app"]);
    expect(claimed.connection.status).toBe(201);
    ours = { ...a, installationId: claimed.installationId };
  });

  it("ISSUE-33: a delivery with a wrong or missing signature is 401 github.signature_invalid and stores nothing", async () => {
    const body = closed();
    const wrong = await deliver("issues", body, { signature: await signWebhook("not-the-secret", JSON.stringify(body)) });
    const missing = await deliver("issues", body, { signature: null });
    const malformed = await deliver("issues", body, { signature: "sha256=xyz" });
    // Signed over another body: the exact bytes count.
    const otherBody = await deliver("issues", body, { signature: await signWebhook(WEBHOOK_SECRET, `${JSON.stringify(body)} `) });
    for (const res of [wrong, missing, malformed, otherBody]) {
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe("github.signature_invalid");
      expect(JSON.stringify(res.json)).not.toContain(WEBHOOK_SECRET);
    }
    expect(await rowsOf([wrong, missing, malformed, otherBody].map((r) => r.deliveryId))).toEqual([]);
    // The same body, signed, is then a fresh delivery: nothing of the refused ones was kept.
    expect((await deliver("issues", body)).status).toBe(200);
  });

  it("ISSUE-33: without GITHUB_WEBHOOK_SECRET the door is 503 github.webhooks_not_configured and stores nothing", async () => {
    const body = JSON.stringify(closed());
    const deliveryId = crypto.randomUUID();
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request("http://api.test/api/github/webhooks", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": deliveryId,
          "x-hub-signature-256": await signWebhook(WEBHOOK_SECRET, body),
        },
        body,
      }),
      { ...testEnv, GITHUB_WEBHOOK_SECRET: undefined },
      ctx,
    );
    const json = (await response.json()) as { error: { code: string } };
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    expect(json.error.code).toBe("github.webhooks_not_configured");
    expect(await rowsOf([deliveryId])).toEqual([]);
  });

  it("ISSUE-33: a body past the cap is 413 and stores nothing", async () => {
    const body = JSON.stringify({ ...closed(), padding: "x".repeat(MAX_WEBHOOK_BYTES) });
    const res = await deliver("issues", body);
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("request.too_large");
    expect(await rowsOf([res.deliveryId])).toEqual([]);
  });

  it("ISSUE-33: a redelivery is 200 duplicate and changes nothing", async () => {
    const body = closed();
    const first = await deliver("issues", body);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ delivery_id: first.deliveryId, outcome: "ignored", detail: "issues.closed is not acted on" });
    const again = await deliver("issues", body, { deliveryId: first.deliveryId });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ duplicate: true });
    expect((await listed(ours.token)).filter((d) => d.delivery_id === first.deliveryId)).toHaveLength(1);
  });

  it("ISSUE-33: twenty identical deliveries sent at once make one row, acted on once", async () => {
    const body = payloadOf(ours.installationId, repo, {
      action: "created",
      issue: issueOf(repo, ++n),
      comment: { id: 9001, body: "please look", html_url: `https://github.com/${repo}/issues/${n}#issuecomment-9001` },
    });
    const deliveryId = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => deliver("issue_comment", body, { deliveryId })));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 202]);
    expect(answers.filter((a) => a.status === 200).every((a) => a.json.duplicate === true)).toBe(true);
    await vi.waitFor(async () => expect(handled((await rowsOf([deliveryId]))[0]!.outcome)).toBe(true), { timeout: 10_000, interval: 50 });
    const rows = await rowsOf([deliveryId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.outcome).not.toBe("failed");
  });

  it("ISSUE-33: the same body under a new delivery id is a duplicate (a captured delivery replayed)", async () => {
    const body = closed();
    const first = await deliver("issues", body);
    expect(first.status).toBe(200);
    const replay = await deliver("issues", body);
    expect(replay.status).toBe(200);
    expect(replay.json).toEqual({ duplicate: true });
    expect(await rowsOf([replay.deliveryId])).toEqual([]);
  });

  it("ISSUE-33: a delivery of an installation no organisation holds is kept ignored and listed to no organisation", async () => {
    const res = await deliver("issues", payloadOf(987_654_321, "stranger/repo", { action: "opened", issue: issueOf("stranger/repo", 1) }));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ delivery_id: res.deliveryId, outcome: "ignored", detail: "installation not connected" });
    const [row] = await rowsOf([res.deliveryId]);
    expect(row).toMatchObject({ organisationId: null, outcome: "ignored", detail: "installation not connected", installationId: 987_654_321 });
    for (const token of [ours.token, theirs.token]) expect((await listed(token)).map((d) => d.delivery_id)).not.toContain(res.deliveryId);
  });

  it("ISSUE-33: once its organisation disconnects an installation, its deliveries are kept ignored, installation not connected", async () => {
    const gone = await claim(theirs.token, "hooks-gone", ["app"]);
    expect(gone.connection.status).toBe(201);
    const body = payloadOf(gone.installationId, "hooks-gone/app", { action: "opened", issue: issueOf("hooks-gone/app", 1) });
    expect((await deliver("issues", body)).status).toBe(202);
    expect((await call("DELETE", `/api/github/connections/${gone.connection.json.id}`, { token: theirs.token })).status).toBe(200);
    const res = await deliver("issues", { ...body, issue: issueOf("hooks-gone/app", 2) });
    expect(res.json).toEqual({ delivery_id: res.deliveryId, outcome: "ignored", detail: "installation not connected" });
    expect((await listed(theirs.token)).map((d) => d.delivery_id)).not.toContain(res.deliveryId);
  });

  it("ISSUE-33: an event the App does not subscribe to is 204 and kept ignored", async () => {
    const res = await deliver("star", payloadOf(ours.installationId, repo, { action: "created", starred_at: new Date().toISOString() }));
    expect(res.status).toBe(204);
    const mine = (await listed(ours.token)).find((d) => d.delivery_id === res.deliveryId);
    expect(mine).toMatchObject({ event: "star", action: "created", repository: repo, sender: "octocat", outcome: "ignored" });
  });

  it("ISSUE-33: a body lacking what its event needs is 400 naming the field, and is not kept", async () => {
    const noNumber = await deliver("issues", payloadOf(ours.installationId, repo, { action: "opened", issue: issueOf(repo, ++n, { number: "12" }) }));
    expect(noNumber.status).toBe(400);
    expect(noNumber.json.error).toMatchObject({ code: "github.payload_invalid", details: { field: "issue.number" } });
    expect(noNumber.json.error.message).toContain("issue.number");
    const { installation: _, ...noInstallation } = payloadOf(ours.installationId, repo, { action: "opened", issue: issueOf(repo, ++n) });
    const res = await deliver("issues", noInstallation);
    expect(res.json.error.details.field).toBe("installation.id");
    const notJson = await deliver("issues", "{not json");
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe("request.invalid_json");
    const noEvent = await deliver("issues", closed(), { omit: ["x-github-event"] });
    expect(noEvent.status).toBe(400);
    expect(noEvent.json.error).toMatchObject({ code: "github.header_missing", details: { header: "X-GitHub-Event" } });
    const noDelivery = await deliver("issues", closed(), { omit: ["x-github-delivery"] });
    expect(noDelivery.json.error).toMatchObject({ code: "github.header_missing", details: { header: "X-GitHub-Delivery" } });
    expect(await rowsOf([noNumber.deliveryId, res.deliveryId, notJson.deliveryId])).toEqual([]);
  });

  it("ISSUE-33: deliveries are listed to their organisation only, newest first, by repository and outcome", async () => {
    const a = await deliver("issues", closed());
    const b = await deliver("issues", payloadOf(ours.installationId, "hooks-acme/other", { action: "closed", issue: issueOf("hooks-acme/other", ++n) }));
    const mine = await listed(ours.token);
    expect(mine.findIndex((d) => d.delivery_id === b.deliveryId)).toBeLessThan(mine.findIndex((d) => d.delivery_id === a.deliveryId));
    expect(mine.find((d) => d.delivery_id === a.deliveryId)).toMatchObject({
      event: "issues",
      action: "closed",
      repository: repo,
      sender: "octocat",
      outcome: "ignored",
      detail: "issues.closed is not acted on",
      error: null,
    });
    expect((await listed(ours.token, "&repository=hooks-acme/other")).map((d) => d.delivery_id)).toEqual([b.deliveryId]);
    expect((await listed(ours.token, "&outcome=failed")).map((d) => d.delivery_id)).not.toContain(a.deliveryId);
    expect((await listed(theirs.token)).filter((d) => d.repository?.startsWith("hooks-acme/"))).toEqual([]);
    const paged = await call("GET", "/api/github/deliveries?limit=1", { token: ours.token });
    expect(paged.json.data).toHaveLength(1);
    const next = await call("GET", `/api/github/deliveries?limit=1&cursor=${paged.json.next_cursor}`, { token: ours.token });
    expect(next.json.data[0].id).not.toBe(paged.json.data[0].id);
    expect((await call("GET", "/api/github/deliveries?outcome=lost", { token: ours.token })).status).toBe(422);
    expect((await call("GET", "/api/github/deliveries")).status).toBe(401);
  });

  it("ISSUE-33: the answer (202, pending) comes at once; the inbox then acts on the delivery and records its outcome", async () => {
    const body = payloadOf(ours.installationId, repo, {
      action: "submitted",
      review: { id: 5, state: "CHANGES_REQUESTED", body: "rename it", html_url: `https://github.com/${repo}/pull/7#pullrequestreview-5` },
      pull_request: { number: 7, head: { ref: "factory/task/APP-1", sha: "abc" }, merged: false },
    });
    const started = Date.now();
    const res = await deliver("pull_request_review", body);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ delivery_id: res.deliveryId, outcome: "pending" });
    let row: Delivery | undefined;
    await vi.waitFor(
      async () => {
        row = (await listed(ours.token)).find((d) => d.delivery_id === res.deliveryId);
        expect(handled(row!.outcome)).toBe(true);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(["accepted", "ignored"]).toContain(row!.outcome);
    expect(row!.detail).toBeTruthy();
    expect(Date.parse(row!.handled_at!)).toBeGreaterThanOrEqual(Date.parse(row!.received_at));
  });

  it("ISSUE-33: a delivery left handling by an inbox that ended more than 5 minutes ago is acted on again by the alarm; a recent one waits", async () => {
    const event = (number: number) => ({
      kind: "review",
      repository: repo,
      installationId: ours.installationId,
      sender: { login: "octocat", id: 1 },
      number,
      state: "commented",
      body: "",
      url: "u",
      headRef: "b",
      origin: "http://api.test",
    });
    const now = Date.now();
    const [stale, recent] = await withDb((db) =>
      db
        .insert(forgeDeliveries)
        .values([
          {
            deliveryId: crypto.randomUUID(),
            bodySha256: crypto.randomUUID(),
            organisationId: ours.organisationId,
            event: "pull_request_review",
            outcome: "handling",
            eventData: event(801),
            handledAt: new Date(now - 6 * 60_000),
          },
          {
            deliveryId: crypto.randomUUID(),
            bodySha256: crypto.randomUUID(),
            organisationId: ours.organisationId,
            event: "pull_request_review",
            outcome: "handling",
            eventData: event(802),
            handledAt: new Date(now - 60_000),
          },
        ])
        .returning(),
    );
    const inbox = forgeInbox(testEnv, ours.organisationId);
    await inbox.received(ours.organisationId);
    await runDurableObjectAlarm(inbox);
    await vi.waitFor(async () => expect((await rowsOf([stale!.deliveryId]))[0]!.outcome).not.toBe("handling"), { timeout: 10_000, interval: 50 });
    const [recentNow] = await rowsOf([recent!.deliveryId]);
    expect(recentNow!.outcome).toBe("handling");
    // The alarm is set for when the recent one becomes claimable.
    const alarm = await runInDurableObject(inbox, (_o: ForgeInboxObject, state) => state.storage.getAlarm());
    expect(alarm).toBe(recent!.handledAt!.getTime() + 5 * 60_000);
    await withDb((db) => db.delete(forgeDeliveries).where(eq(forgeDeliveries.id, recent!.id)));
  });

  it("ISSUE-33: the inbox deletes its organisation's handled deliveries past 30 days, keeping newer ones and any still being acted on", async () => {
    const org = await seedGuild("Webhooks sweep");
    const day = 24 * 60 * 60_000;
    // A row still being acted on (handling, claimed just now) is kept whatever its age.
    const row = (outcome: string, ageDays: number) => ({
      deliveryId: crypto.randomUUID(),
      bodySha256: crypto.randomUUID(),
      organisationId: org.organisationId,
      event: "issues",
      outcome,
      eventData: {},
      receivedAt: new Date(Date.now() - ageDays * day),
      handledAt: new Date(),
    });
    const rows = [row("ignored", 31), row("accepted", 40), row("handling", 31), row("ignored", 29)];
    await withDb((db) => db.insert(forgeDeliveries).values(rows));
    await forgeInbox(testEnv, org.organisationId).received(org.organisationId);
    const left = await rowsOf(rows.map((r) => r.deliveryId));
    expect(left.map((r) => r.deliveryId).sort()).toEqual([rows[2]!.deliveryId, rows[3]!.deliveryId].sort());
    await withDb((db) => db.delete(forgeDeliveries).where(eq(forgeDeliveries.organisationId, org.organisationId)));
  });

  it("ISSUE-33: deliveries of one pull request are acted on in the order received", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await deliver(
        "pull_request_review_comment",
        payloadOf(ours.installationId, repo, {
          action: "created",
          comment: { id: 7000 + i, body: `note ${i}`, path: "src/a.ts", line: i + 1, html_url: `https://github.com/${repo}/pull/9#discussion_r${7000 + i}` },
          pull_request: { number: 9, head: { ref: "factory/task/APP-2", sha: "def" } },
        }),
      );
      expect(res.status).toBe(202);
      ids.push(res.deliveryId);
    }
    await vi.waitFor(async () => expect((await rowsOf(ids)).every((r) => handled(r.outcome))).toBe(true), { timeout: 10_000, interval: 50 });
    const rows = await rowsOf(ids);
    const at = (id: string) => rows.find((r) => r.deliveryId === id)!.handledAt!.getTime();
    for (let i = 1; i < ids.length; i++) expect(at(ids[i]!)).toBeGreaterThanOrEqual(at(ids[i - 1]!));
  });
});
