import type { Env } from "../../bindings/env";
import { githubApp } from "../../bindings/github";
import { forgeAdmin } from "./github";

/**
 * Branches made on the local forge from workerd (no git binary here): a commit of whole files
 * written as git objects, packed without deltas and pushed over smart HTTP with an
 * installation token, as a task's box would push through the gateway.
 */

const text = new TextEncoder();

async function sha1(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-1", bytes));
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

interface GitObject {
  type: 1 | 2 | 3; // commit, tree, blob
  body: Uint8Array;
  id: Uint8Array;
}

async function object(type: GitObject["type"], body: Uint8Array): Promise<GitObject> {
  const name = { 1: "commit", 2: "tree", 3: "blob" }[type];
  return { type, body, id: await sha1(concat([text.encode(`${name} ${body.length}\0`), body])) };
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer());
}

async function pack(objects: GitObject[]): Promise<Uint8Array> {
  const count = objects.length;
  const parts: Uint8Array[] = [new Uint8Array([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, count >>> 24, (count >>> 16) & 255, (count >>> 8) & 255, count & 255])];
  for (const o of objects) {
    let rest = o.body.length >> 4;
    const head = [(o.type << 4) | (o.body.length & 15) | (rest ? 0x80 : 0)];
    while (rest) {
      const next = rest >> 7;
      head.push((rest & 0x7f) | (next ? 0x80 : 0));
      rest = next;
    }
    parts.push(new Uint8Array(head), await deflate(o.body));
  }
  const joined = concat(parts);
  return concat([joined, await sha1(joined)]);
}

/** The branch's sha on the forge, or undefined. */
export async function forgeBranch(fullName: string, branch: string): Promise<string | undefined> {
  const repo = await forgeAdmin("GET", `/repos/${fullName}`);
  return (repo.json.branches as Array<{ name: string; sha: string }>).find((b) => b.name === branch)?.sha;
}

/** The repository's branch names on the forge. */
export async function forgeBranches(fullName: string): Promise<string[]> {
  return ((await forgeAdmin("GET", `/repos/${fullName}`)).json.branches as Array<{ name: string }>).map((b) => b.name).sort();
}

/**
 * Pushes a commit on top of `base` (a branch of the repository) whose tree is exactly `files`
 * to `branch`, which must not exist yet. Returns the commit's id.
 */
export async function pushFiles(
  env: Env,
  installationId: number,
  fullName: string,
  base: string,
  branch: string,
  files: Record<string, string>,
): Promise<string> {
  const parent = await forgeBranch(fullName, base);
  if (!parent) throw new Error(`the forge has no branch ${base} in ${fullName}`);
  const blobs = await Promise.all(Object.entries(files).map(async ([name, content]) => ({ name, blob: await object(3, text.encode(content)) })));
  blobs.sort((a, b) => (a.name < b.name ? -1 : 1));
  const tree = await object(2, concat(blobs.flatMap(({ name, blob }) => [text.encode(`100644 ${name}\0`), blob.id])));
  const commit = await object(
    1,
    text.encode(
      `tree ${hex(tree.id)}\nparent ${parent}\nauthor A <a@example.test> 1700000000 +0000\ncommitter A <a@example.test> 1700000000 +0000\n\n${branch}\n`,
    ),
  );
  const { token } = await githubApp(env)!.mintRepositoryToken(installationId, fullName);
  const line = `${"0".repeat(40)} ${hex(commit.id)} refs/heads/${branch}\0report-status\n`;
  const body = concat([text.encode(`${(line.length + 4).toString(16).padStart(4, "0")}${line}0000`), await pack([commit, tree, ...blobs.map((b) => b.blob)])]);
  const response = await fetch(`${env.GITHUB_GIT_URL!.replace(/\/+$/, "")}/${fullName}.git/git-receive-pack`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`x-access-token:${token}`)}`, "content-type": "application/x-git-receive-pack-request" },
    body,
  });
  const answer = new TextDecoder().decode(await response.arrayBuffer());
  if (!answer.includes(`ok refs/heads/${branch}`)) throw new Error(`the forge refused the push to ${branch}: ${response.status} ${answer}`);
  return hex(commit.id);
}
