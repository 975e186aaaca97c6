/** The stack's GitHub stand-in: the Worker's variables name an App the forge knows (issue 14, "A real forge for tests"). */
import { createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startLocalGitHub } from "./local-app";
import { admin, appJwt } from "./test-support";

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
});
