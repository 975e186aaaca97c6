import { describe, expect, it } from "vitest";
import { readSetup, rememberReturn, takeReturn } from "./github-setup";

function memory(): Storage {
  const values = new Map<string, string>();
  return {
    getItem: (k: string) => values.get(k) ?? null,
    setItem: (k: string, v: string) => void values.set(k, v),
    removeItem: (k: string) => void values.delete(k),
  } as Storage;
}

describe("the GitHub setup page's query (OP-REPO-6)", () => {
  it("OP-REPO-6: GitHub's redirect becomes the claim's body", () => {
    expect(readSetup("?installation_id=42&setup_action=install&code=abc123&state=n.x.s")).toEqual({
      kind: "claim",
      body: { installation_id: 42, code: "abc123", state: "n.x.s" },
    });
    expect(readSetup("?installation_id=42&setup_action=update&code=c&state=s").kind).toBe("claim");
  });

  it("OP-REPO-6: a request for an owner's approval claims nothing; a redirect without code or state names what is missing", () => {
    expect(readSetup("?setup_action=request&state=s")).toEqual({ kind: "requested" });
    expect(readSetup("?installation_id=42&setup_action=install")).toEqual({ kind: "incomplete", missing: ["code", "state"] });
    expect(readSetup("?installation_id=x&code=c&state=s")).toEqual({ kind: "incomplete", missing: ["installation_id"] });
  });

  it("OP-REPO-6: the page that started the claim is returned to once, and only a path of the console", () => {
    const storage = memory();
    rememberReturn("/guilds/g1/repositories", storage);
    expect(takeReturn(storage)).toBe("/guilds/g1/repositories");
    expect(takeReturn(storage)).toBe("/guilds");
    for (const elsewhere of ["//evil.example/x", "https://evil.example/"]) {
      rememberReturn(elsewhere, storage);
      expect(takeReturn(storage)).toBe("/guilds");
    }
  });
});
