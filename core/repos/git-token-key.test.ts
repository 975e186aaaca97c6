import { describe, expect, it } from "vitest";
import { gitTokenKey, tokenAuthorization, tokenKeyOf } from "./git-token-key";

describe("OP-REPO-1: the git-tokens.json key", () => {
  it("OP-REPO-1: is the clone URL's host and path without scheme, credentials or .git", () => {
    expect(gitTokenKey("https://github.com/acme/app.git")).toBe("github.com/acme/app");
    expect(gitTokenKey("https://github.com/acme/app")).toBe("github.com/acme/app");
    expect(gitTokenKey("http://172.17.0.1:8123/git/acme/app.git")).toBe("172.17.0.1:8123/git/acme/app");
    expect(gitTokenKey("https://user:pw@GitHub.com/acme/app.git")).toBe("github.com/acme/app");
  });

  it("OP-REPO-1: what git's credential request gives (host, path with useHttpPath) maps to the same key", () => {
    expect(tokenKeyOf("172.17.0.1:8123", "git/acme/app.git")).toBe(gitTokenKey("http://172.17.0.1:8123/git/acme/app.git"));
    expect(tokenKeyOf("github.com", "/acme/app.git/")).toBe("github.com/acme/app");
  });

  it("OP-REPO-1: no key for URLs the helper cannot answer (ssh, scp-like, garbage)", () => {
    expect(gitTokenKey("git@github.com:acme/app.git")).toBeNull();
    expect(gitTokenKey("ssh://git@github.com/acme/app.git")).toBeNull();
    expect(gitTokenKey("file:///srv/app.git")).toBeNull();
    expect(gitTokenKey("not a url")).toBeNull();
  });

  it("OP-REPO-1: a token's Authorization is Basic x-access-token:<token>, as git's Basic auth and Node's base64 encode it, also past Latin-1", () => {
    expect(tokenAuthorization("abc")).toBe(`Basic ${Buffer.from("x-access-token:abc").toString("base64")}`);
    expect(tokenAuthorization("tok€n")).toBe(`Basic ${Buffer.from("x-access-token:tok€n").toString("base64")}`);
  });
});
