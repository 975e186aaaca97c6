import { beforeAll, describe, expect, it } from "vitest";
import { approveInstall, authorizeApp, claimState } from "../../../scripts/forge/claim";
import { agentWithSecret, generate } from "../container-stack";
import { type Boxes, forgeAdmin, organisation } from "./tenant";

/**
 * A GitHub installation belongs to one organisation (OP-REPO-6). The stack's operator
 * organisation (A) owns an account on the forge whose App installation reaches a private
 * repository; organisation B tries to take that installation: by its id alone, by replaying
 * A's redirect, with a code of its own user, with a code of a read-only outside collaborator
 * of A's repository (GitHub lists the installation for them, but they do not own it), and once
 * A holds it with a code of A's owner. Each is refused without naming A's account; A's own claim goes through
 * and its coding agent clones and pushes through it.
 */
export function githubClaims(boxes: Boxes): void {
  describe("OP-REPO-6: a GitHub installation belongs to one organisation", () => {
    const forge = forgeAdmin(boxes);
    const adminUrl = () => boxes.stack.forge!.adminUrl;
    const suffix = crypto.randomUUID().slice(0, 8);
    const victim = `victim-${suffix}`;
    const owner = `owner-${suffix}`;
    let mallory: Awaited<ReturnType<typeof organisation>>;
    let installationId: number;

    /** B's refusals must not say whose the installation is. */
    const revealsNothing = (answer: { text?: string; json: unknown }) => {
      const text = answer.text ?? JSON.stringify(answer.json);
      expect(text).not.toContain(victim);
      expect(text).not.toContain(owner);
    };
    const malloryHolds = async () =>
      (await mallory.call("GET", "/api/github/connections")).json.data.map((c: { installation_id: number }) => c.installation_id);

    /**
     * A's claim, made once whichever test needs it first: A's owner approves on the install
     * page with A's state, B replays that very redirect first, then A's console posts it.
     */
    let claimed: Promise<{ replayed: Awaited<ReturnType<typeof mallory.call>>; connection: Awaited<ReturnType<typeof boxes.call>> }> | undefined;
    const victimClaim = () => {
      claimed ??= (async () => {
        const { state } = await claimState(boxes.call);
        const approval = await approveInstall(adminUrl(), { account: victim, user: owner, state });
        expect(approval.installation_id).toBe(installationId);
        const redirect = { installation_id: approval.installation_id, code: approval.code, state };
        const replayed = await mallory.call("POST", "/api/github/connections", redirect);
        const connection = await boxes.call("POST", "/api/github/connections", redirect);
        return { replayed, connection };
      })();
      return claimed;
    };

    beforeAll(async () => {
      mallory = await organisation(boxes, `Mallory ${suffix}`);
      const repo = await forge("POST", "/repos", { full_name: `${victim}/private`, private: true, files: { "README.md": "victim\n" } });
      expect(repo.status).toBe(201);
      // A's account is an organisation that installed the App on GitHub; its owner administers it.
      expect((await forge("PUT", `/orgs/${victim}/memberships/${owner}`, { role: "admin" })).status).toBe(200);
      const installation = await forge("POST", "/installations", { account: victim, repositories: ["private"], users: [owner] });
      expect(installation.status).toBe(201);
      installationId = installation.json.id;
    });

    it("OP-REPO-6: B naming A's installation by id, or with a made-up code, connects nothing and learns no account", async () => {
      const byId = await mallory.call("POST", "/api/github/connections", { installation_id: installationId });
      expect(byId.status).toBe(422);
      expect(byId.json.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["code", "state"]);
      revealsNothing(byId);
      const { state } = await claimState(mallory.call);
      const madeUp = await mallory.call("POST", "/api/github/connections", { installation_id: installationId, code: "0123456789abcdef0123", state });
      expect(madeUp.status).toBe(422);
      expect(madeUp.json.error.code).toBe("github.code_refused");
      revealsNothing(madeUp);
      expect(await malloryHolds()).not.toContain(installationId);
    });

    it("OP-REPO-6: B replaying A's redirect (installation, code and state) is 422 github.state_invalid; A's claim with it then succeeds", async () => {
      const { replayed, connection } = await victimClaim();
      expect(replayed.status).toBe(422);
      expect(replayed.json.error).toMatchObject({ code: "github.state_invalid", details: { field: "state" } });
      revealsNothing(replayed);
      expect(connection.status, connection.text).toBe(201);
      expect(connection.json).toMatchObject({ installation_id: installationId, account_login: victim, disconnected_at: null });
      expect(await malloryHolds()).not.toContain(installationId);
    });

    it("OP-REPO-6: B with its own state and the code of a user GitHub does not list the installation for is 422 github.installation_refused", async () => {
      const { state } = await claimState(mallory.call);
      // Mallory installs the App on her own account: a genuine code, of a user A's installation does not know.
      const own = await approveInstall(adminUrl(), { account: `mallory-${suffix}`, state });
      const res = await mallory.call("POST", "/api/github/connections", { installation_id: installationId, code: own.code, state });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: "github.installation_refused", details: { field: "installation_id" } });
      revealsNothing(res);
      expect(await malloryHolds()).not.toContain(installationId);
    });

    it("OP-REPO-6: B with a code of a read-only outside collaborator of A's repository, whom GitHub lists it for, is 422 github.installation_refused", async () => {
      const reader = `reader-${suffix}`;
      expect((await forge("PUT", `/repos/${victim}/private/collaborators/${reader}`, { permission: "read" })).status).toBe(200);
      const { state } = await claimState(mallory.call);
      const res = await mallory.call("POST", "/api/github/connections", {
        installation_id: installationId,
        code: await authorizeApp(adminUrl(), reader),
        state,
      });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: "github.installation_refused", details: { field: "installation_id" } });
      revealsNothing(res);
      expect(await malloryHolds()).not.toContain(installationId);
    });

    it("OP-REPO-6: once A holds it, even a code of A's owner (a member of both) gets B 409 github.installation_held naming neither A nor the account", async () => {
      expect((await victimClaim()).connection.status).toBe(201);
      const { state } = await claimState(mallory.call);
      const approval = await approveInstall(adminUrl(), { account: victim, user: owner, state });
      const res = await mallory.call("POST", "/api/github/connections", { installation_id: installationId, code: approval.code, state });
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: "github.installation_held", details: { field: "installation_id" } });
      revealsNothing(res);
      expect(res.text).not.toContain(boxes.stack.token);
      expect(await malloryHolds()).not.toContain(installationId);
      // Nor can B add the repository through A's connection: it is not one of B's.
      const guild = await mallory.call("POST", "/api/guilds", { name: "Mallory's guild" });
      const through = await mallory.call("POST", `/api/guilds/${guild.json.id}/repositories`, {
        full_name: `${victim}/private`,
        connection_id: (await victimClaim()).connection.json.id,
      });
      expect(through.status).toBe(422);
      expect(through.json.error.details.fields[0].field).toBe("connection_id");
    });

    it("OP-REPO-6: B's own claim is spent once, even by two requests at the same moment", async () => {
      const { state } = await claimState(mallory.call);
      const approval = await approveInstall(adminUrl(), { account: `mallory-own-${suffix}`, state });
      const body = { installation_id: approval.installation_id, code: approval.code, state };
      const second = await approveInstall(adminUrl(), { account: `mallory-own-${suffix}` });
      const answers = await Promise.all([
        mallory.call("POST", "/api/github/connections", body),
        mallory.call("POST", "/api/github/connections", { ...body, code: second.code }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)!.json.error.code).toBe("github.state_used");
      expect((await malloryHolds()).filter((id: number) => id === approval.installation_id)).toHaveLength(1);
    });

    it("OP-REPO-6: A's claimed installation works end to end: its coding agent clones the private repository and pushes to it", async () => {
      const { connection } = await victimClaim();
      expect(connection.status).toBe(201);
      const agent = await agentWithSecret(boxes.call, "Owner", { coding: true });
      const repository = await boxes.call("POST", `/api/guilds/${agent.guildId}/repositories`, {
        full_name: `${victim}/private`,
        connection_id: connection.json.id,
      });
      expect(repository.status, repository.text).toBe(201);
      const { results, run } = await generate(boxes, agent, [
        {
          name: "shell",
          arguments: {
            command: "cat README.md && echo claimed >> README.md && git commit -qam 'Claimed' && git push -q origin HEAD:claimed 2>&1; echo pushed=$?",
          },
        },
      ]);
      expect(run.errors).toEqual([]);
      expect(results[0]).toContain("victim\n");
      expect(results[0]).toContain("pushed=0");
      const commits = await forge("GET", `/repos/${victim}/private/commits?ref=claimed&limit=1`);
      expect(commits.json.commits[0].message).toContain("Claimed");
    }, 300_000);
  });
}
