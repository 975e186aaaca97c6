import { describe, expect, it } from "vitest";
import { viewRefusal } from "./view-access";

const now = 1_800_000_000_000;
const agent = { organisationId: "org-a", cli: true, browser: true };
const token = { organisationId: "org-a", revokedAt: null, expiresAt: null };

describe("view access (SBX-026: a ticket opens its view only while the view, the agent and the token allow it)", () => {
  it("SBX-026: a live token, an existing agent and the view on serve the view", () => {
    expect(viewRefusal("cli", agent, token, now)).toBeNull();
    expect(viewRefusal("browser", agent, { ...token, expiresAt: new Date(now + 1) }, now)).toBeNull();
  });

  it("SBX-026: the view's setting turned off is 403 naming the setting", () => {
    expect(viewRefusal("cli", { ...agent, cli: false }, token, now)).toMatchObject({ status: 403, code: "cli.disabled" });
    expect(viewRefusal("browser", { ...agent, browser: false }, token, now)).toMatchObject({ status: 403, code: "browser.disabled" });
    expect(viewRefusal("browser", { ...agent, cli: false }, token, now)).toBeNull();
  });

  it("SBX-026: a revoked, missing or expired minting token is 401; a deleted agent, or one of another organisation, is 404", () => {
    expect(viewRefusal("cli", agent, { ...token, revokedAt: new Date(now - 1) }, now)).toMatchObject({ status: 401, code: "auth.token_revoked" });
    expect(viewRefusal("cli", agent, null, now)).toMatchObject({ status: 401, code: "auth.token_revoked" });
    expect(viewRefusal("cli", agent, { ...token, expiresAt: new Date(now) }, now)).toMatchObject({ status: 401, code: "auth.token_expired" });
    expect(viewRefusal("cli", null, token, now)).toMatchObject({ status: 404, code: "agent.not_found" });
    expect(viewRefusal("cli", agent, { ...token, organisationId: "org-b" }, now)).toMatchObject({ status: 404, code: "agent.not_found" });
  });
});
