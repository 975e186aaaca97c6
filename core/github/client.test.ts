import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin } from "../../scripts/forge/test-support";
import { GitHubApp, GitHubError } from "./client";

/** The client against the local forge: GitHub's App endpoints, the App JWT checked with the public key. */

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
// GitHub issues App keys as PKCS#1.
const privateKeyPem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;

let forge: Forge;
let installationId: number;
const app = (appId = "4242") => new GitHubApp({ apiUrl: forge.apiUrl, appId, privateKeyPem });
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail("resolved"),
    (error: unknown) => error as GitHubError,
  );

beforeAll(async () => {
  forge = await startForge({ appId: "4242", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }) as string });
  for (const full_name of ["acme/widgets", "acme/gadgets", "acme/secret-sauce"]) await admin(forge.adminUrl, "POST", "/repos", { full_name, private: true });
  installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["widgets", "gadgets"] })).json.id;
});
afterAll(() => forge?.close());

describe("GitHubApp against the forge (OP-REPO-6, REPO-002, REPO-004)", () => {
  it("OP-REPO-6: reads an installation's account with the App JWT", async () => {
    expect(await app().installation(installationId)).toEqual({ id: installationId, account_login: "acme" });
  });

  it("REPO-002: mints one token limited to the named repositories with contents and pull requests write", async () => {
    const minted = await app().mintToken(installationId, ["widgets", "gadgets"]);
    expect(Date.parse(minted.expires_at)).toBeGreaterThan(Date.now());
    const { tokens } = (await admin(forge.adminUrl, "GET", "/tokens")).json;
    const held = tokens.find((t: { token: string }) => t.token === minted.token);
    expect(held).toMatchObject({
      installation_id: installationId,
      repositories: ["acme/widgets", "acme/gadgets"],
      permissions: { contents: "write", pull_requests: "write" },
    });
  });

  it("REPO-002: mints a token for one owner/repo with contents and pull requests write; another owner's namesake is refused", async () => {
    const minted = await app().mintRepositoryToken(installationId, "acme/widgets");
    const held = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.find((t: { token: string }) => t.token === minted.token);
    expect(held).toMatchObject({ repositories: ["acme/widgets"], permissions: { contents: "write", pull_requests: "write" } });
    const namesake = await failure(app().mintRepositoryToken(installationId, "someone-else/widgets"));
    expect([namesake.kind, namesake.repository]).toEqual(["repository_unreachable", "someone-else/widgets"]);
    // GitHub minted a token for acme/widgets: dropped, and in no part of the error.
    const dropped = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.at(-1).token;
    expect(dropped).not.toBe(minted.token);
    expect(`${namesake.message} ${JSON.stringify(namesake)}`).not.toContain(dropped);
    expect((await failure(app().mintRepositoryToken(installationId, "acme/secret-sauce"))).kind).toBe("repository_unreachable");
    await expect(app().mintRepositoryToken(installationId, "widgets")).rejects.toThrow(TypeError);
  });

  it("REPO-004: a repository the installation does not reach is named in the error, which carries no token", async () => {
    const before = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.length;
    const error = await failure(app().mintToken(installationId, ["widgets", "secret-sauce", "gadgets"]));
    expect(error).toBeInstanceOf(GitHubError);
    expect(error.kind).toBe("repository_unreachable");
    expect(error.repository).toBe("secret-sauce");
    // The probe minted a token for "widgets" alone: it is in no part of the error.
    const probes = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.slice(before);
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(probe.token);
  });

  it("REPO-004: an unknown or revoked installation is installation_refused", async () => {
    expect((await failure(app().installation(999_999))).kind).toBe("installation_refused");
    const revoked = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["widgets"] })).json.id;
    await admin(forge.adminUrl, "DELETE", `/installations/${revoked}`);
    expect((await failure(app().mintToken(revoked, ["widgets"]))).kind).toBe("installation_refused");
  });

  it("REPO-004: a repository asked alone that the installation does not reach is named without a probe; no repository at all is never asked", async () => {
    const before = (await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.length;
    const error = await failure(app().mintToken(installationId, ["secret-sauce"]));
    expect([error.kind, error.repository]).toEqual(["repository_unreachable", "secret-sauce"]);
    // An empty list would be an unrestricted token on GitHub.
    await expect(app().mintToken(installationId, [])).rejects.toThrow(TypeError);
    expect((await admin(forge.adminUrl, "GET", "/tokens")).json.tokens.length).toBe(before);
  });

  it("REPO-004: an installation that does not grant the permissions asked is installation_refused, not an unreachable repository", async () => {
    // GitHub's answer when the owner accepted fewer permissions than the App asks (the forge grants them all).
    const fewer = async () => Response.json({ message: "The permissions requested are not granted to this installation." }, { status: 422 });
    const stingy = new GitHubApp({ apiUrl: forge.apiUrl, appId: "4242", privateKeyPem, fetch: fewer });
    const error = await failure(stingy.mintToken(installationId, ["widgets", "gadgets"]));
    expect(error.kind).toBe("installation_refused");
    expect(error.repository).toBeUndefined();
  });

  it("OP-REPO-6: credentials the forge does not accept and an unreachable API are unavailable, not a refusal", async () => {
    const wrongApp = await failure(app("1").installation(installationId));
    expect(wrongApp.kind).toBe("unavailable");
    expect(wrongApp.message).toContain("401");
    const down = new GitHubApp({ apiUrl: "http://127.0.0.1:9", appId: "4242", privateKeyPem });
    expect((await failure(down.installation(installationId))).kind).toBe("unavailable");
  });
});
