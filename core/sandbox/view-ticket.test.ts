import { describe, expect, it } from "vitest";
import { mintViewTicket, VIEW_TICKET_TTL_MS, verifyViewTicket, viewTicketKey } from "./view-ticket";

const KEK = Buffer.alloc(32, 7).toString("base64");
const agentId = "7d0f5a3e-29b6-4c55-9d3c-0b1b2c3d4e5f";
const tokenId = "0b6f1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d";

describe("view tickets (SBX-026: the views answer only through the authenticated proxy)", () => {
  it("SBX-026: a ticket opens only the view and agent it was minted for, until it expires, and names the token that asked for it", async () => {
    const key = await viewTicketKey(KEK);
    const now = 1_800_000_000_000;
    const ticket = await mintViewTicket(key, { agentId, view: "cli", tokenId, expiresAt: now + VIEW_TICKET_TTL_MS });
    expect(ticket).toMatch(/^[0-9a-z]+\.[0-9a-f]{32}\.[A-Za-z0-9_-]{43}$/);
    expect(await verifyViewTicket(key, ticket, { agentId, view: "cli", now })).toEqual({ tokenId, expiresAt: now + VIEW_TICKET_TTL_MS });
    expect(await verifyViewTicket(key, ticket, { agentId, view: "browser", now })).toBeNull();
    expect(await verifyViewTicket(key, ticket, { agentId: agentId.replace("7d", "8d"), view: "cli", now })).toBeNull();
    expect(await verifyViewTicket(key, ticket, { agentId, view: "cli", now: now + VIEW_TICKET_TTL_MS })).toBeNull();
  });

  it("SBX-026: a ticket signed under another key, or altered (its expiry or its token), is refused", async () => {
    const now = Date.now();
    const other = await mintViewTicket(await viewTicketKey(Buffer.alloc(32, 9).toString("base64")), {
      agentId,
      view: "browser",
      tokenId,
      expiresAt: now + 60_000,
    });
    const key = await viewTicketKey(KEK);
    expect(await verifyViewTicket(key, other, { agentId, view: "browser", now })).toBeNull();
    const own = await mintViewTicket(key, { agentId, view: "browser", tokenId, expiresAt: now + 60_000 });
    const [expiry, token, signature] = own.split(".");
    const later = `${(Number.parseInt(expiry!, 36) + 1000).toString(36)}.${token}.${signature}`;
    expect(await verifyViewTicket(key, later, { agentId, view: "browser", now })).toBeNull();
    const anotherToken = `${expiry}.${"1".repeat(32)}.${signature}`;
    expect(await verifyViewTicket(key, anotherToken, { agentId, view: "browser", now })).toBeNull();
    // The earlier form, without a token, opens nothing.
    expect(await verifyViewTicket(key, `${expiry}.${signature}`, { agentId, view: "browser", now })).toBeNull();
    expect(await verifyViewTicket(key, "not a ticket", { agentId, view: "browser", now })).toBeNull();
    await expect(viewTicketKey(undefined)).rejects.toThrow("SECRETS_KEK is not set");
  });

  it("SBX-026: the ticket's agent is its canonical id: the same agent written in capitals verifies, nothing else does", async () => {
    const key = await viewTicketKey(KEK);
    const now = Date.now();
    const ticket = await mintViewTicket(key, { agentId: agentId.toUpperCase(), view: "cli", tokenId: tokenId.toUpperCase(), expiresAt: now + 60_000 });
    expect(await verifyViewTicket(key, ticket, { agentId, view: "cli", now })).toEqual({ tokenId, expiresAt: now + 60_000 });
  });

  it("SBX-026: tickets live 15 minutes", () => {
    expect(VIEW_TICKET_TTL_MS).toBe(15 * 60 * 1000);
  });
});
