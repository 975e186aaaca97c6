import { describe, expect, it } from "vitest";
import { mintViewTicket, VIEW_TICKET_TTL_MS, verifyViewTicket, viewTicketKey } from "./view-ticket";

const KEK = Buffer.alloc(32, 7).toString("base64");
const agentId = "7d0f5a3e-29b6-4c55-9d3c-0b1b2c3d4e5f";

describe("view tickets (SBX-026: the views answer only through the authenticated proxy)", () => {
  it("SBX-026: a ticket opens only the view and agent it was minted for, until it expires", async () => {
    const key = await viewTicketKey(KEK);
    const now = 1_800_000_000_000;
    const ticket = await mintViewTicket(key, { agentId, view: "cli", expiresAt: now + VIEW_TICKET_TTL_MS });
    expect(ticket).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyViewTicket(key, ticket, { agentId, view: "cli", now })).toBe(true);
    expect(await verifyViewTicket(key, ticket, { agentId, view: "browser", now })).toBe(false);
    expect(await verifyViewTicket(key, ticket, { agentId: agentId.replace("7d", "8d"), view: "cli", now })).toBe(false);
    expect(await verifyViewTicket(key, ticket, { agentId, view: "cli", now: now + VIEW_TICKET_TTL_MS })).toBe(false);
  });

  it("SBX-026: a ticket signed under another key, or altered, is refused", async () => {
    const now = Date.now();
    const other = await mintViewTicket(await viewTicketKey(Buffer.alloc(32, 9).toString("base64")), { agentId, view: "browser", expiresAt: now + 60_000 });
    const key = await viewTicketKey(KEK);
    expect(await verifyViewTicket(key, other, { agentId, view: "browser", now })).toBe(false);
    const own = await mintViewTicket(key, { agentId, view: "browser", expiresAt: now + 60_000 });
    const [expiry, signature] = own.split(".");
    const later = `${(Number.parseInt(expiry!, 36) + 1000).toString(36)}.${signature}`;
    expect(await verifyViewTicket(key, later, { agentId, view: "browser", now })).toBe(false);
    expect(await verifyViewTicket(key, "not a ticket", { agentId, view: "browser", now })).toBe(false);
    await expect(viewTicketKey(undefined)).rejects.toThrow("SECRETS_KEK is not set");
  });
});
