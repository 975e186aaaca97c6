import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GitHubApp, GitHubError } from "./client";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;
const TOKEN = "ghs_client-test-token-0123456789";

/**
 * GitHub's installation endpoints as documented, over an injected fetch: installation 1 of
 * account "acme" reaches "widgets" and "gadgets"; the App JWT is checked with the public key.
 */
function fakeGitHub(calls: string[]) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    const jwt = headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const [h, p, s] = jwt.split(".");
    if (!s || !verify("sha256", Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, "base64url")))
      return Response.json({ message: "bad JWT" }, { status: 401 });
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    if (claims.iss !== "99") return Response.json({ message: "wrong app" }, { status: 401 });
    const match = /^\/api\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(url.pathname);
    if (match?.[1] !== "1") return Response.json({ message: "Not Found" }, { status: 404 });
    if (!match[2]) return Response.json({ id: 1, account: { login: "acme" } });
    const body = JSON.parse(String(init?.body));
    calls.push(body.repositories.join(","));
    expect(body.permissions).toEqual({ contents: "write", pull_requests: "write" });
    if (body.repositories.some((r: string) => !["widgets", "gadgets"].includes(r))) return Response.json({ message: "not accessible" }, { status: 422 });
    return Response.json(
      { token: TOKEN, expires_at: "2026-12-01T11:00:00Z", repositories: body.repositories.map((name: string) => ({ name })) },
      { status: 201 },
    );
  };
}

const app = (calls: string[] = [], appId = "99") => new GitHubApp({ apiUrl: "http://github.test/api/", appId, privateKeyPem, fetch: fakeGitHub(calls) });

describe("GitHubApp (OP-REPO-6, REPO-002, REPO-004)", () => {
  it("OP-REPO-6: reads an installation's account with the App JWT", async () => {
    expect(await app().installation(1)).toEqual({ id: 1, account_login: "acme" });
  });

  it("REPO-004: an installation GitHub does not know is installation_refused", async () => {
    const error = await app()
      .installation(2)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect((error as GitHubError).kind).toBe("installation_refused");
    expect(
      (
        (await app()
          .mintToken(2, ["widgets"])
          .catch((e: unknown) => e)) as GitHubError
      ).kind,
    ).toBe("installation_refused");
  });

  it("REPO-002: mints one token limited to the named repositories with contents and pull requests write", async () => {
    const calls: string[] = [];
    expect(await app(calls).mintToken(1, ["widgets", "gadgets"])).toEqual({ token: TOKEN, expires_at: "2026-12-01T11:00:00Z" });
    expect(calls).toEqual(["widgets,gadgets"]);
  });

  it("REPO-004: a repository the installation no longer reaches is named in the error, which carries no token", async () => {
    const calls: string[] = [];
    const error = (await app(calls)
      .mintToken(1, ["widgets", "moved", "gadgets"])
      .catch((e: unknown) => e)) as GitHubError;
    expect(error.kind).toBe("repository_unreachable");
    expect(error.repository).toBe("moved");
    expect(error.message).toContain("moved");
    expect(error.message).not.toContain(TOKEN);
    expect(calls).toEqual(["widgets,moved,gadgets", "widgets", "moved"]);
  });

  it("OP-REPO-6: credentials GitHub does not accept and an unreachable API are unavailable, not a refusal", async () => {
    const wrongApp = (await app([], "100")
      .installation(1)
      .catch((e: unknown) => e)) as GitHubError;
    expect(wrongApp.kind).toBe("unavailable");
    expect(wrongApp.message).toContain("401");
    const down = new GitHubApp({ apiUrl: "http://127.0.0.1:9", appId: "99", privateKeyPem });
    expect(((await down.installation(1).catch((e: unknown) => e)) as GitHubError).kind).toBe("unavailable");
  });
});
