/**
 * The git tooling of the standard box for real (REPO-005..018, REPO-022, REPO-026..028,
 * OP-REPO-1): guilds-code, the credential helper and the trailer hook, run in a box through
 * the guest as the platform runs them, against bare repositories on this machine (file:// in
 * the box, and over smart HTTP with Basic auth).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentShell, type Box, buildImages, dockerUnavailable, runBox } from "./boxes";
import { type GitServer, startGitServer } from "./git-server";

const unavailable = dockerUnavailable();
const TOKEN = "ghs_testtoken0123456789";

let box: Box;
let server: GitServer;

const { sh, json } = agentShell(() => box);
const writeTokens = (entries: Record<string, string>) =>
  sh(
    `cat > /run/guilds/git-tokens.json <<'JSON'\n${JSON.stringify(Object.fromEntries(Object.entries(entries).map(([k, token]) => [k, { token, expires_at: "2099-01-01T00:00:00Z" }])))}\nJSON`,
  );
const hostOf = (url: string) => new URL(url).host;

beforeAll(async () => {
  if (unavailable) return;
  await buildImages();
  box = await runBox("standard", { HOME: "/home/agent" });
  server = await startGitServer(box.ip.replace(/\.\d+$/, ".1"), TOKEN);
  server.createRepo("acme/public");
  server.createRepo("acme/private", { private: true });
  server.createRepo("acme/old-name");
}, 900_000);

afterAll(async () => {
  await box?.remove();
  await server?.close();
});

describe.skipIf(unavailable)("guilds-code in the standard box", () => {
  it("REPO-005: identity writes the agent's name and email into its global git configuration", async () => {
    expect(await json(`guilds-code identity --name "Ada O'Agent" --email ada@agents.guilds.run`)).toEqual({
      name: "Ada O'Agent",
      email: "ada@agents.guilds.run",
    });
    expect((await sh("git config --global user.name; git config --global user.email; cat /home/agent/.gitconfig | grep -c name")).stdout).toBe(
      "Ada O'Agent\nada@agents.guilds.run\n1\n",
    );
    const bad = await sh("guilds-code identity --name 'a\nb' --email x@y", {}, true);
    expect(bad.exitCode).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: "usage" });
  });

  it("REPO-006: a missing repository is cloned into /home/agent/repos/<dir>; a present one is left alone", async () => {
    const url = `${server.base}/acme/public.git`;
    expect(await json(`guilds-code clone --url ${url} --dir public`)).toEqual({ name: "public", path: "/home/agent/repos/public", action: "cloned" });
    expect((await sh("cat /home/agent/repos/public/README.md; git -C /home/agent/repos/public remote get-url origin")).stdout).toBe(`# acme/public\n${url}\n`);
    expect(await json(`guilds-code clone --url ${url} --dir public`)).toEqual({ name: "public", path: "/home/agent/repos/public", action: "present" });
    expect((await sh("ls -A /home/agent/repos")).stdout).not.toContain(".cloning");
  });

  it("REPO-007: a clone whose origin names another URL on the same host is re-pointed; another host's is not", async () => {
    await json(`guilds-code clone --url ${server.base}/acme/old-name.git --dir renamed`);
    const moved = `${server.base}/acme/new-name.git`;
    expect(await json(`guilds-code clone --url ${moved} --dir renamed`)).toMatchObject({ action: "repointed" });
    expect((await sh("git -C /home/agent/repos/renamed remote get-url origin")).stdout).toBe(`${moved}\n`);
    expect(await json(`guilds-code clone --url https://elsewhere.example/acme/new-name.git --dir renamed`)).toMatchObject({ action: "present" });
    expect((await sh("git -C /home/agent/repos/renamed remote get-url origin")).stdout).toBe(`${moved}\n`);
  });

  it("OP-REPO-1: git asks the credential helper, which answers the token of the repository's own path and nothing for others", async () => {
    const host = hostOf(server.base);
    await writeTokens({ [`${host}/git/acme/private`]: TOKEN, [`${host}/git/acme/other`]: "ghs_other" });
    const ask = (path: string) => sh(`printf 'protocol=http\\nhost=${host}\\npath=${path}\\n' | git-credential-guilds get`);
    expect((await ask("git/acme/private.git")).stdout).toBe(`username=x-access-token\npassword=${TOKEN}\n`);
    expect((await ask("git/acme/unknown.git")).stdout).toBe("");
    expect((await sh("git config --system credential.useHttpPath")).stdout).toBe("true\n");

    server.seen.length = 0;
    expect(await json(`guilds-code clone --url ${server.base}/acme/private.git --dir private`)).toMatchObject({ action: "cloned" });
    expect(server.seen).toContain(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`);
    // A public repository without an entry is fetched anonymously: no token travels.
    server.seen.length = 0;
    await sh("git -C /home/agent/repos/public fetch -q origin");
    expect(server.seen.every((header) => header === undefined)).toBe(true);
  });

  it("REPO-008: a clone that wanted credentials says whether the repository had none (anonymous) or a token git left unused", async () => {
    const url = `${server.base}/acme/private.git`;
    await writeTokens({});
    const anonymous = await sh(`guilds-code clone --url ${url} --dir private-2`, {}, true);
    expect(anonymous.exitCode).toBe(3);
    expect(JSON.parse(anonymous.stdout)).toEqual({
      error: "repository.clone",
      reason: expect.stringContaining("could not read Username"),
      credentials: "anonymous",
    });
    await writeTokens({ [`${hostOf(url)}/git/acme/private`]: "ghs_expired_or_revoked" });
    const unused = await sh(`guilds-code clone --url ${url} --dir private-2`, {}, true);
    expect(unused.exitCode).toBe(3);
    expect(JSON.parse(unused.stdout)).toEqual({
      error: "repository.clone",
      reason: expect.stringContaining("Authentication failed"),
      credentials: "token_unused",
    });
    expect(unused.stdout).not.toContain("ghs_expired_or_revoked");
    const missing = await sh(`guilds-code clone --url ${server.base}/acme/nope.git --dir nope`, {}, true);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: "repository.clone", credentials: null });
    expect((await sh("ls -A /home/agent/repos")).stdout).toBe("private\npublic\nrenamed\n");
  });

  it("OP-REPO-7: a clone over its time limit is stopped and reported as a timeout, leaving nothing behind", async () => {
    const hanging = `${server.base.replace(/\/git$/, "")}/hang/acme/slow.git`;
    const started = Date.now();
    const result = await sh(`guilds-code clone --url ${hanging} --dir slow --timeout-s 2`, {}, true);
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({ error: "repository.clone", reason: "timeout after 2 s", credentials: null });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect((await sh("ls -A /home/agent/repos; pgrep -c git-remote || true")).stdout).toBe("private\npublic\nrenamed\n0\n");
  });
});
