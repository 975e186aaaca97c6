import { describe, expect, it } from "vitest";
import { mintViewTicket, viewTicketKey } from "../sandbox/view-ticket";
import { CLAIM_STATE_TTL_MS, claimStateKey, mintClaimState, randomNonce, readClaimState } from "./claim-state";

const KEK = Buffer.alloc(32, 7).toString("base64");
const ours = "7d0f5a3e-29b6-4c55-9d3c-0b1b2c3d4e5f";
const theirs = "8e1f5a3e-29b6-4c55-9d3c-0b1b2c3d4e5f";

describe("GitHub claim states (OP-REPO-6: an installation is claimed by the organisation that asked)", () => {
  it("OP-REPO-6: a state reads back for the organisation it was minted for until it expires, and names no organisation", async () => {
    const key = await claimStateKey(KEK);
    const now = 1_800_000_000_000;
    const nonce = randomNonce();
    const state = await mintClaimState(key, { organisationId: ours, nonce, expiresAt: now + CLAIM_STATE_TTL_MS });
    expect(state).toMatch(/^[A-Za-z0-9_-]{22}\.[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(state).not.toContain(ours);
    expect(await readClaimState(key, state, { organisationId: ours, now })).toEqual({ nonce, expiresAt: now + CLAIM_STATE_TTL_MS });
    expect(await readClaimState(key, state, { organisationId: theirs, now })).toBeNull();
    expect(await readClaimState(key, state, { organisationId: ours, now: now + CLAIM_STATE_TTL_MS })).toBeNull();
  });

  it("OP-REPO-6: a state under another key, an altered one, a view ticket or junk is refused", async () => {
    const now = Date.now();
    const key = await claimStateKey(KEK);
    const other = await mintClaimState(await claimStateKey(Buffer.alloc(32, 9).toString("base64")), {
      organisationId: ours,
      nonce: randomNonce(),
      expiresAt: now + 60_000,
    });
    expect(await readClaimState(key, other, { organisationId: ours, now })).toBeNull();
    const own = await mintClaimState(key, { organisationId: ours, nonce: randomNonce(), expiresAt: now + 60_000 });
    const [nonce, expiry, signature] = own.split(".") as [string, string, string];
    const later = `${nonce}.${(Number.parseInt(expiry, 36) + 1000).toString(36)}.${signature}`;
    expect(await readClaimState(key, later, { organisationId: ours, now })).toBeNull();
    const swapped = `${randomNonce()}.${expiry}.${signature}`;
    expect(await readClaimState(key, swapped, { organisationId: ours, now })).toBeNull();
    // The same secret keys the view tickets: its label keeps a ticket from passing as a state.
    const ticket = await mintViewTicket(await viewTicketKey(KEK), { agentId: ours, view: "cli", tokenId: "0".repeat(32), expiresAt: now + 60_000 });
    expect(await readClaimState(key, `${nonce}.${ticket}`, { organisationId: ours, now })).toBeNull();
    expect(await readClaimState(key, "not a state", { organisationId: ours, now })).toBeNull();
    await expect(claimStateKey(" ")).rejects.toThrow("SECRETS_KEK is not set");
  });

  it("OP-REPO-6: nonces do not repeat", () => {
    const nonces = new Set(Array.from({ length: 1000 }, randomNonce));
    expect(nonces.size).toBe(1000);
  });
});
