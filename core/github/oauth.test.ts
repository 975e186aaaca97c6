import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin, appKeyPair } from "../../scripts/forge/test-support";
import type { GitHubError } from "./client";
import { GitHubOAuth } from "./oauth";

/** The installation claim's GitHub calls against the local forge: install URL, code exchange, the user's installations. */

let forge: Forge;
const oauth = (secret = forge.identity.clientSecret, fetcher?: typeof fetch) =>
  new GitHubOAuth({
    webUrl: forge.webUrl,
    apiUrl: forge.apiUrl,
    slug: forge.identity.slug,
    clientId: forge.identity.clientId,
    clientSecret: secret,
    fetch: fetcher,
  });
const failure = (pending: Promise<unknown>) =>
  pending.then(
    () => expect.fail("resolved"),
    (error: unknown) => error as GitHubError,
  );

beforeAll(async () => {
  forge = await startForge({ appId: "4242", publicKeyPem: appKeyPair().publicKeyPem });
});
afterAll(() => forge?.close());

describe("GitHubOAuth against the forge (OP-REPO-6)", () => {
  it("OP-REPO-6: the install URL is the App's page on GitHub's web base, carrying the state", async () => {
    const url = oauth().installUrl("n0nce.abc.sig-_");
    expect(url).toBe(`${forge.webUrl}/apps/guilds-forge/installations/new?state=n0nce.abc.sig-_`);
    expect((await fetch(url)).status).toBe(200);
  });

  it("OP-REPO-6: a code gives a user token once; the installation is found only among that user's", async () => {
    const alice = (await admin(forge.adminUrl, "POST", "/install", { account: "acme", user: "alice" })).json;
    const other = (await admin(forge.adminUrl, "POST", "/installations", { account: "elsewhere" })).json.id;
    const token = await oauth().exchangeCode(alice.code);
    expect(await oauth().userInstallation(token, alice.installation_id)).toEqual({ id: alice.installation_id, account_login: "acme" });
    expect(await oauth().userInstallation(token, other)).toBeNull();
    const used = await failure(oauth().exchangeCode(alice.code));
    expect(used).toMatchObject({ kind: "code_refused" });
  });

  it("OP-REPO-6: a wrong client secret is unavailable naming the settings, never the secret", async () => {
    const { code } = (await admin(forge.adminUrl, "POST", "/install", { account: "bob" })).json;
    const error = await failure(oauth("wrong-secret-value").exchangeCode(code));
    expect(error.kind).toBe("unavailable");
    expect(error.message).toContain("GITHUB_APP_CLIENT_SECRET");
    expect(error.message).not.toContain("wrong-secret-value");
    expect((await failure(oauth().userInstallation("ghu_forged", 1))).kind).toBe("code_refused");
  });

  it("OP-REPO-6: GitHub's failing answers never reach the error with their body", async () => {
    const leaky = (async () => new Response('{"access_token":"ghu_leaked"}', { status: 500 })) as unknown as typeof fetch;
    const error = await failure(oauth(undefined, leaky).exchangeCode("abc"));
    expect(error).toMatchObject({ kind: "unavailable" });
    expect(error.message).not.toContain("ghu_leaked");
    const down = (async () => {
      throw new TypeError("fetch failed");
    }) as unknown as typeof fetch;
    expect((await failure(oauth(undefined, down).userInstallation("ghu_x", 1))).message).toMatch(/did not answer \S*\/user\/installations: TypeError/);
  });
});
