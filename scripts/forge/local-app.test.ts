/** The stack's GitHub stand-in: the Worker's variables name an App the forge knows (issue 14, "A real forge for tests"). */
import { createHmac, createPrivateKey } from "node:crypto";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startLocalGitHub } from "./local-app";
import { admin, appJwt, git, hookReceiver, isEvent, remote, workDir } from "./test-support";

/** A token minted for `repositories` of the installation with the App's key from `vars`. */
async function mint(vars: Record<string, string>, installation: number, repositories: string[]) {
  const jwt = appJwt(createPrivateKey(vars.GITHUB_APP_PRIVATE_KEY!), { iss: vars.GITHUB_APP_ID! });
  return fetch(`${vars.GITHUB_API_URL}/app/installations/${installation}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}` },
    body: JSON.stringify({ repositories }),
  });
}

describe("startLocalGitHub", () => {
  it("FORGE: a JWT signed with GITHUB_APP_PRIVATE_KEY (PKCS#8) mints a token at GITHUB_API_URL; git is at GITHUB_GIT_URL", async () => {
    const { forge, vars } = await startLocalGitHub(undefined, () => {});
    try {
      expect(vars.GITHUB_APP_PRIVATE_KEY).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(vars.GITHUB_GIT_URL).toBe(forge.gitUrl);
      await admin(forge.adminUrl, "POST", "/repos", { full_name: "acme/app", private: true });
      const installation = (await admin(forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] })).json.id;
      const jwt = appJwt(createPrivateKey(vars.GITHUB_APP_PRIVATE_KEY!), { iss: vars.GITHUB_APP_ID! });
      const res = await fetch(`${vars.GITHUB_API_URL}/app/installations/${installation}/access_tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${jwt}` },
        body: JSON.stringify({ repositories: ["app"] }),
      });
      expect(res.status).toBe(201);
      const refs = await fetch(`${vars.GITHUB_GIT_URL}/acme/app.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from(`x-access-token:${((await res.json()) as { token: string }).token}`).toString("base64")}` },
      });
      expect(refs.status).toBe(200);
    } finally {
      await forge.close();
    }
  });

  it("FORGE: a bridge address this machine does not hold leaves git on loopback, and says so", async () => {
    const lines: string[] = [];
    const { forge } = await startLocalGitHub("192.0.2.1", (line) => lines.push(line));
    try {
      expect(new URL(forge.gitUrl).hostname).toBe("127.0.0.1");
      expect(lines.join("\n")).toMatch(/cannot listen on 192\.0\.2\.1/);
    } finally {
      await forge.close();
    }
  });

  it("FORGE: with a state folder a restarted forge keeps its App key, OAuth client, repositories, installations and tokens", async () => {
    const dir = workDir();
    try {
      const first = await startLocalGitHub(undefined, () => {}, { dir, setupUrl: "http://console.test/github/setup" });
      let installation: number;
      let token: string;
      try {
        expect(first.vars).toMatchObject({ GITHUB_APP_SLUG: "guilds-forge", GITHUB_WEB_URL: first.forge.webUrl, GITHUB_APP_CLIENT_SECRET: expect.any(String) });
        await admin(first.forge.adminUrl, "POST", "/repos", { full_name: "acme/app", private: true, files: { "a.txt": "kept\n" } });
        installation = (await admin(first.forge.adminUrl, "POST", "/install", { account: "acme", user: "alice", repositories: ["app"] })).json.installation_id;
        token = ((await (await mint(first.vars, installation, ["app"])).json()) as { token: string }).token;
      } finally {
        await first.forge.close();
      }
      // The key and the state are the stack user's alone.
      expect(statSync(join(dir, "app-key.pem")).mode & 0o077).toBe(0);
      expect(statSync(join(dir, "repos", "forge-state.json")).mode & 0o077).toBe(0);

      const second = await startLocalGitHub(undefined, () => {}, { dir });
      try {
        for (const name of ["GITHUB_APP_ID", "GITHUB_APP_PRIVATE_KEY", "GITHUB_APP_SLUG", "GITHUB_APP_CLIENT_ID", "GITHUB_APP_CLIENT_SECRET"]) {
          expect(second.vars[name], name).toBe(first.vars[name]);
        }
        // The old key still signs for this forge, the installation still names its account and
        // repository, and the token minted before the restart still clones.
        expect((await mint(second.vars, installation, ["app"])).status).toBe(201);
        expect((await admin(second.forge.adminUrl, "GET", `/installations/${installation}`)).json).toMatchObject({
          account: "acme",
          repositories: ["acme/app"],
          users: ["acme", "alice"],
        });
        const clone = join(dir, "clone");
        await git(["clone", "--quiet", remote(second.forge.gitUrl, "acme/app", token), clone]);
        expect(readFileSync(join(clone, "a.txt"), "utf8")).toBe("kept\n");
        // A new installation does not take the id of one the database may still name.
        const next = (await admin(second.forge.adminUrl, "POST", "/installations", { account: "other" })).json.id;
        expect(next).toBe(installation + 1);
      } finally {
        await second.forge.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("ISSUE-33: the state folder keeps a webhook secret beside the App (0600), given as GITHUB_WEBHOOK_SECRET, signing what goes to webhookUrl; a folder made before it gains one", async () => {
    const receiver = await hookReceiver();
    const dir = workDir();
    try {
      const first = await startLocalGitHub(undefined, () => {}, { dir, webhookUrl: receiver.url });
      const secret = first.vars.GITHUB_WEBHOOK_SECRET!;
      try {
        expect(secret).toMatch(/^[0-9a-f]{64}$/);
        expect(JSON.parse(readFileSync(join(dir, "app.json"), "utf8")).webhook_secret).toBe(secret);
        expect(statSync(join(dir, "app.json")).mode & 0o077).toBe(0);
        await admin(first.forge.adminUrl, "POST", "/repos", { full_name: "acme/app", private: true });
        await admin(first.forge.adminUrl, "POST", "/installations", { account: "acme", repositories: ["app"] });
        await admin(first.forge.adminUrl, "POST", "/repos/acme/app/issues", { user: "alice", title: "Hello", body: "" });
        const hook = await receiver.next(isEvent("issues", "opened"));
        expect(hook.headers["x-hub-signature-256"]).toBe(`sha256=${createHmac("sha256", secret).update(hook.body).digest("hex")}`);
      } finally {
        await first.forge.close();
      }
      const second = await startLocalGitHub(undefined, () => {}, { dir });
      await second.forge.close();
      expect(second.vars.GITHUB_WEBHOOK_SECRET).toBe(secret);
      // An App saved before webhooks: its next start adds a secret and keeps the rest.
      const app = JSON.parse(readFileSync(join(dir, "app.json"), "utf8"));
      delete app.webhook_secret;
      writeFileSync(join(dir, "app.json"), JSON.stringify(app));
      const third = await startLocalGitHub(undefined, () => {}, { dir });
      await third.forge.close();
      expect(third.vars.GITHUB_WEBHOOK_SECRET).toMatch(/^[0-9a-f]{64}$/);
      expect(third.vars.GITHUB_WEBHOOK_SECRET).not.toBe(secret);
      expect(third.vars.GITHUB_APP_ID).toBe(second.vars.GITHUB_APP_ID);
      expect(JSON.parse(readFileSync(join(dir, "app.json"), "utf8")).webhook_secret).toBe(third.vars.GITHUB_WEBHOOK_SECRET);
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
