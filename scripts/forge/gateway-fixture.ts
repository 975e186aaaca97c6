/**
 * The git gateway (core/git-gateway) served by node:http in front of the local forge, as the
 * Container's outbound handler serves it in workerd: one installation of `account` holding
 * `repos`, a task of the first of them keyed `taskKey`, and the run's credential. For the
 * gateway's tests and its bench.
 *
 * @example const fx = await gatewayFixture({ account: "acme", repos: { app: { "README.md": "hi\n" } } });
 *          await git(["clone", fx.boxRemote(), dir]); await fx.close();
 */
import { type GatewayDeps, type GitAuthorization, type GitRefusalEvent, gatewayHandler } from "../../core/git-gateway/handler";
import { isAncestorOnForge } from "../../core/github/compare";
import { type FetchServer, serveFetch } from "./serve-fetch";
import { type Forge, startForge } from "./server";
import { admin, appJwt, appKeyPair } from "./test-support";

export interface GatewayFixture {
  forge: Forge;
  gateway: FetchServer;
  /** What the task's object answers for the credential; tests may flip `allowForcePush`. */
  grant: GitAuthorization;
  taskId: string;
  credential: string;
  /** Refused pushes, as the task would hear of them. */
  refusals: GitRefusalEvent[];
  /** The ancestry questions put to the forge's compare API: [ancestor, commit]. */
  asked: string[][];
  /** Every byte a client got from the gateway: status lines, headers, bodies. */
  received(): string;
  /** The box's remote: the task's path on the gateway, the credential as git's Basic password. */
  boxRemote(path?: string, credential?: string): string;
  /** The receive-pack URL of the task's repository, for raw requests. */
  receivePackUrl: string;
  /** The headers of a raw push with the run's credential. */
  pushHeaders: Record<string, string>;
  /** The forge's refs of a repository: ref → id. */
  forgeRefs(fullName?: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function gatewayFixture(options: {
  account: string;
  /** Repository name → its files; the first is the task's. */
  repos: Record<string, Record<string, string>>;
  taskKey?: string;
  /** Keeps what clients received (off for a bench). */
  record?: boolean;
}): Promise<GatewayFixture> {
  const appId = "91";
  const keys = appKeyPair();
  const forge = await startForge({ appId, publicKeyPem: keys.publicKeyPem });
  const names = Object.keys(options.repos);
  for (const name of names) {
    const created = await admin(forge.adminUrl, "POST", "/repos", { full_name: `${options.account}/${name}`, private: true, files: options.repos[name] });
    if (created.status !== 201) throw new Error(`the forge did not create ${name}: ${created.status}`);
  }
  const installation = (await admin(forge.adminUrl, "POST", "/installations", { account: options.account, repositories: names })).json.id;
  const minted = await fetch(`${forge.apiUrl}/app/installations/${installation}/access_tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${appJwt(keys.privateKey, { iss: appId })}`, "content-type": "application/json" },
    body: JSON.stringify({ repositories: names }),
  });
  const token = ((await minted.json()) as { token: string }).token;
  const taskId = "5b7e0c1e-0000-4000-8000-000000000001";
  const credential = "run-credential-4f1d";
  const fullName = `${options.account}/${names[0]}`;
  const grant: GitAuthorization = { fullName, baseBranch: "main", taskKey: options.taskKey ?? "APP-1", allowForcePush: false, token };
  const refusals: GitRefusalEvent[] = [];
  const asked: string[][] = [];
  let received = "";
  const deps: GatewayDeps = {
    authorize: async (id, given) => (id === taskId && given === credential ? grant : null),
    forgeGitUrl: forge.gitUrl,
    fetch: (input, init) => fetch(input, init),
    refused: async (event) => {
      refusals.push(event);
    },
    ancestry: (g, ancestor, commit) => {
      asked.push([ancestor, commit]);
      return isAncestorOnForge({ apiUrl: forge.apiUrl, token: g.token, fullName: g.fullName }, ancestor, commit);
    },
  };
  const gateway = await serveFetch(async (request) => {
    const response = await gatewayHandler(request, deps);
    if (options.record === false) return response;
    let head = `${response.status}\n`;
    response.headers.forEach((value, name) => {
      head += `${name}: ${value}\n`;
    });
    received += head;
    // Recorded as the bytes pass, so an answer that outlasts its request is not held back.
    const recorder = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += Buffer.from(chunk).toString("latin1");
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body?.pipeThrough(recorder) ?? null, response);
  });
  return {
    forge,
    gateway,
    grant,
    taskId,
    credential,
    refusals,
    asked,
    received: () => received,
    boxRemote(path = fullName, given = credential) {
      const url = new URL(`${gateway.url}/tasks/${taskId}/${path}.git`);
      url.username = "x";
      url.password = given;
      return url.toString();
    },
    receivePackUrl: `${gateway.url}/tasks/${taskId}/${fullName}.git/git-receive-pack`,
    pushHeaders: { authorization: `Basic ${btoa(`x:${credential}`)}`, "content-type": "application/x-git-receive-pack-request" },
    async forgeRefs(name = fullName) {
      const refs = (await admin(forge.adminUrl, "GET", `/repos/${name}`)).json.refs as Array<{ ref: string; sha: string }>;
      return Object.fromEntries(refs.map((r) => [r.ref, r.sha]));
    },
    async close() {
      await gateway.close();
      await forge.close();
    },
  };
}
