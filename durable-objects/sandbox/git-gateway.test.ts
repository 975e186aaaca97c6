import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../bindings/env";
import { githubApp } from "../../bindings/github";
import { commitId } from "../../core/git-gateway/commit";
import { type GitRefusalEvent, gatewayHandler } from "../../core/git-gateway/handler";
import { isAncestorOnForge } from "../../core/github/compare";
import { FORGE_ADMIN } from "../../test/workerd/github";
import { GATEWAY_HOST, gatewayRemote, gitGateway, taskBoxName } from "./git-gateway";

const bindings = env as unknown as Env;
const basic = { authorization: `Basic ${btoa("x:some-credential")}` };
const infoRefs = (taskId: string) => new Request(`${gatewayRemote(taskId, "acme/app")}/info/refs?service=git-upload-pack`, { headers: basic });

describe("the git gateway's outbound handler", () => {
  it("TASK-014: only the task's own box reaches its task's gateway path", async () => {
    const taskId = crypto.randomUUID();
    expect(new URL(gatewayRemote(taskId, "acme/app")).host).toBe(GATEWAY_HOST);
    const other = crypto.randomUUID();
    const otherBox = bindings.SANDBOX_STANDARD.idFromName(taskBoxName(other)).toString();
    expect((await gitGateway(infoRefs(taskId), bindings, { containerId: otherBox, className: "StandardSandbox" })).status).toBe(403);
    // An agent's box (named by the agent id) or the lite class is not a task's box.
    const agentBox = bindings.SANDBOX_STANDARD.idFromName(taskId).toString();
    expect((await gitGateway(infoRefs(taskId), bindings, { containerId: agentBox, className: "StandardSandbox" })).status).toBe(403);
    const ownBox = bindings.SANDBOX_STANDARD.idFromName(taskBoxName(taskId)).toString();
    expect((await gitGateway(infoRefs(taskId), bindings, { containerId: ownBox, className: "LiteSandbox" })).status).toBe(403);
    expect((await gitGateway(new Request(`http://${GATEWAY_HOST}/elsewhere`), bindings, { containerId: ownBox, className: "StandardSandbox" })).status).toBe(
      404,
    );
  });

  it("TASK-014: the task's box with a credential its task does not vouch for is asked for one (401)", async () => {
    const taskId = crypto.randomUUID();
    const ownBox = bindings.SANDBOX_STANDARD.idFromName(taskBoxName(taskId)).toString();
    const answer = await gitGateway(infoRefs(taskId), bindings, { containerId: ownBox, className: "StandardSandbox" });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toMatch(/^Basic /);
  });
});

/** git's pack of these commits (no deltas), with its SHA-1 trailer. */
async function packOf(bodies: string[]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [new Uint8Array([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, bodies.length])];
  for (const body of bodies) {
    const bytes = new TextEncoder().encode(body);
    const head = [0x10 | (bytes.length & 15) | 0x80];
    for (let rest = bytes.length >> 4; rest; rest >>= 7) head.push((rest & 0x7f) | (rest >> 7 ? 0x80 : 0));
    parts.push(new Uint8Array(head));
    parts.push(new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer()));
  }
  const joined = new Uint8Array(await new Blob(parts).arrayBuffer());
  return new Uint8Array(await new Blob([joined, await crypto.subtle.digest("SHA-1", joined)]).arrayBuffer());
}

const commitBody = (parent: string, message: string) =>
  `tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent ${parent}\nauthor A <a@example.test> 1700000000 +0000\ncommitter A <a@example.test> 1700000000 +0000\n\n${message}\n`;

describe("the gateway in workerd", () => {
  it("TASK-017: a push streams through to the forge; a fast-forward is accepted, rewritten history and the base branch refused", async () => {
    const account = `gw${crypto.randomUUID().slice(0, 8)}`;
    const fullName = `${account}/app`;
    await fetch(`${FORGE_ADMIN}/repos`, { method: "POST", body: JSON.stringify({ full_name: fullName, private: true }) });
    const installation = (await (
      await fetch(`${FORGE_ADMIN}/installations`, { method: "POST", body: JSON.stringify({ account, repositories: ["app"] }) })
    ).json()) as { id: number };
    const { token } = await githubApp(bindings)!.mintToken(installation.id, ["app"]);
    const grant = { fullName, baseBranch: "main", taskKey: "APP-1", allowForcePush: false, token };
    const refused: GitRefusalEvent[] = [];
    const handler = (request: Request) =>
      gatewayHandler(request, {
        authorize: async (_taskId, credential) => (credential === "cred" ? grant : null),
        forgeGitUrl: bindings.GITHUB_GIT_URL!,
        fetch: (input, init) => fetch(input, init),
        refused: async (event) => {
          refused.push(event);
        },
        ancestry: (g, ancestor, commit) => isAncestorOnForge({ apiUrl: bindings.GITHUB_API_URL!, token: g.token, fullName: g.fullName }, ancestor, commit),
      });
    const base = `http://${GATEWAY_HOST}/tasks/t1/${fullName}.git`;
    const headers = { authorization: `Basic ${btoa("x:cred")}` };
    const advertised = new TextDecoder().decode(await (await handler(new Request(`${base}/info/refs?service=git-receive-pack`, { headers }))).arrayBuffer());
    expect(advertised).not.toContain(token);
    const main = /([0-9a-f]{40}) refs\/heads\/main/.exec(advertised)![1]!;
    const push = async (old: string, ref: string, bodies: string[]) => {
      const tip = bodies.length ? await commitId(new TextEncoder().encode(bodies.at(-1)!)) : old;
      const line = `${old} ${tip} ${ref}\0report-status side-band-64k\n`;
      const list = new TextEncoder().encode(`${(line.length + 4).toString(16).padStart(4, "0")}${line}0000`);
      const pack = await packOf(bodies);
      // Streamed in small pieces, as a box's git sends a large push.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(list);
          for (let at = 0; at < pack.length; at += 16) controller.enqueue(pack.slice(at, at + 16));
          controller.close();
        },
      });
      const answer = await handler(
        new Request(`${base}/git-receive-pack`, { method: "POST", headers: { ...headers, "content-type": "application/x-git-receive-pack-request" }, body }),
      );
      return { tip, status: answer.status, text: new TextDecoder().decode(await answer.arrayBuffer()) };
    };
    const refs = async () => ((await (await fetch(`${FORGE_ADMIN}/repos/${fullName}`)).json()) as { refs: Array<{ ref: string; sha: string }> }).refs;
    const task = "refs/heads/factory/task/APP-1";
    const first = await push("0".repeat(40), task, [commitBody(main, "first")]);
    expect(first.text).toContain(`ok ${task}`);
    const second = await push(first.tip, task, [commitBody(first.tip, "second")]);
    expect(second.text).toContain(`ok ${task}`);
    expect((await refs()).find((r) => r.ref === task)?.sha).toBe(second.tip);
    const rewritten = await push(second.tip, task, [commitBody(main, "rewritten")]);
    expect(rewritten.text).toContain(`ng ${task} non-fast-forward`);
    const toMain = await push(main, "refs/heads/main", [commitBody(main, "on main")]);
    expect(toMain.text).toContain("ng refs/heads/main the base branch is never pushed to");
    expect((await refs()).map((r) => [r.ref, r.sha])).toEqual([
      [task, second.tip],
      ["refs/heads/main", main],
    ]);
    expect(refused.map((e) => e.refs[0]?.ref)).toEqual([task, "refs/heads/main"]);
  });
});
