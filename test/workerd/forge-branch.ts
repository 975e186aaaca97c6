import { commitId } from "../../core/git-gateway/commit";
import { testEnv } from "./tasks";

/**
 * Commits pushed to the local forge from inside workerd, as git's smart HTTP sends them: a
 * commit of the empty tree on `parent`, in a pack of its own (no deltas), with an
 * installation token. What a task's branch needs in tests that cannot run git.
 */

/** git's pack of these commit bodies, with its SHA-1 trailer. */
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

/**
 * Pushes one commit on `parent` to `branch` (whose tip is `old`, zeros for a new branch); the
 * new tip. Throws when the forge does not answer `ok`.
 *
 * @example const tip = await forgePush("acme/app", token, "factory/task/APP-1", "0".repeat(40), mainSha, "first");
 */
export async function forgePush(fullName: string, token: string, branch: string, old: string, parent: string, message: string): Promise<string> {
  const body = commitBody(parent, message);
  const tip = await commitId(new TextEncoder().encode(body));
  const ref = `refs/heads/${branch}`;
  const line = `${old} ${tip} ${ref}\0report-status\n`;
  const list = new TextEncoder().encode(`${(line.length + 4).toString(16).padStart(4, "0")}${line}0000`);
  const pack = await packOf([body]);
  const answer = await fetch(`${testEnv.GITHUB_GIT_URL}/${fullName}.git/git-receive-pack`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`x-access-token:${token}`)}`, "content-type": "application/x-git-receive-pack-request" },
    body: new Uint8Array(await new Blob([list, pack]).arrayBuffer()),
  });
  const text = await answer.text();
  if (!text.includes(`ok ${ref}`)) throw new Error(`the forge refused the push of ${ref} (HTTP ${answer.status}): ${text.slice(0, 300)}`);
  return tip;
}
