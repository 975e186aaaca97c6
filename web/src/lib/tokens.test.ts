import { describe, expect, it } from "vitest";
import type { ApiToken } from "./api-types";
import { expiryFields, isCurrentToken, tokenState } from "./tokens";

const token = (over: Partial<ApiToken> = {}): ApiToken => ({
  id: "t",
  name: "CI",
  prefix: "gld_abc123",
  created_at: "2026-01-01T00:00:00.000Z",
  last_used_at: null,
  expires_at: null,
  revoked_at: null,
  ...over,
});

describe("HARDEN-5: the console's token helpers", () => {
  it("HARDEN-5: a token is revoked, expired or active", () => {
    const now = new Date("2026-06-01T00:00:00Z");
    expect(tokenState(token(), now)).toBe("active");
    expect(tokenState(token({ expires_at: "2026-07-01T00:00:00Z" }), now)).toBe("active");
    expect(tokenState(token({ expires_at: "2026-05-01T00:00:00Z" }), now)).toBe("expired");
    expect(tokenState(token({ expires_at: "2026-05-01T00:00:00Z", revoked_at: "2026-04-01T00:00:00Z" }), now)).toBe("revoked");
  });

  it("HARDEN-5: the expiry choice becomes expires_in_days, expires_at at the end of the day, or nothing", () => {
    expect(expiryFields({ kind: "never" })).toEqual({});
    expect(expiryFields({ kind: "days", days: 30 })).toEqual({ expires_in_days: 30 });
    const at = new Date(expiryFields({ kind: "date", date: "2027-03-04" }).expires_at!);
    expect([at.getFullYear(), at.getMonth(), at.getDate(), at.getHours(), at.getMinutes()]).toEqual([2027, 2, 4, 23, 59]);
  });

  it("HARDEN-5: recognises the token the console is signed in with by its prefix", () => {
    expect(isCurrentToken(token(), "gld_abc123rest")).toBe(true);
    expect(isCurrentToken(token(), "gld_zzz999rest")).toBe(false);
    expect(isCurrentToken(token(), null)).toBe(false);
  });
});
