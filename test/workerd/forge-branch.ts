import { testEnv } from "./tasks";

/**
 * Commits pushed to the local forge from inside workerd, as git's smart HTTP sends them: a
 * commit on `parent` whose tree holds the given files (none: the empty tree), in a pack of
 * its own (no deltas), with an installation token. What a task's branch needs in tests that
 * cannot run git.
 */

const COMMIT = 1;
const TREE = 2;
const BLOB = 3;
const TYPE_NAMES = { [COMMIT]: "commit", [TREE]: "tree", [BLOB]: "blob" } as const;
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

interface GitObject {
  type: keyof typeof TYPE_NAMES;
  body: Uint8Array;
  id: string;
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
const concat = async (parts: Uint8Array[]) => new Uint8Array(await new Blob(parts).arrayBuffer());

async function gitObject(type: GitObject["type"], body: Uint8Array): Promise<GitObject> {
  const header = new TextEncoder().encode(`${TYPE_NAMES[type]} ${body.length}\0`);
  return { type, body, id: hex(await crypto.subtle.digest("SHA-1", await concat([header, body]))) };
}

/** A tree of entries (name → [mode, id]), sorted as git sorts them (a directory as if its name ended in "/"). */
async function tree(entries: Array<{ name: string; mode: string; id: string }>): Promise<GitObject> {
  const key = (e: { name: string; mode: string }) => (e.mode === "40000" ? `${e.name}/` : e.name);
  const sorted = [...entries].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const parts = sorted.flatMap((e) => [
    new TextEncoder().encode(`${e.mode} ${e.name}\0`),
    new Uint8Array(e.id.match(/../g)!.map((h) => Number.parseInt(h, 16))),
  ]);
  return gitObject(TREE, await concat(parts));
}

/** The trees and blobs of `files` (path → text); the root tree last. */
async function treeOf(files: Record<string, string>, objects: GitObject[]): Promise<string> {
  const entries: Array<{ name: string; mode: string; id: string }> = [];
  const dirs = new Map<string, Record<string, string>>();
  for (const [path, text] of Object.entries(files)) {
    const [first, ...rest] = path.split("/");
    if (rest.length) dirs.set(first!, { ...dirs.get(first!), [rest.join("/")]: text });
    else {
      const blob = await gitObject(BLOB, new TextEncoder().encode(text));
      objects.push(blob);
      entries.push({ name: first!, mode: "100644", id: blob.id });
    }
  }
  for (const [name, inner] of dirs) entries.push({ name, mode: "40000", id: await treeOf(inner, objects) });
  const root = await tree(entries);
  objects.push(root);
  return root.id;
}

/** git's pack of these objects, with its SHA-1 trailer. */
async function packOf(objects: GitObject[]): Promise<Uint8Array> {
  const n = objects.length;
  const parts: Uint8Array[] = [new Uint8Array([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])];
  for (const { type, body } of objects) {
    let rest = body.length >> 4;
    const head = [(type << 4) | (body.length & 15) | (rest ? 0x80 : 0)];
    while (rest) {
      const byte = rest & 0x7f;
      rest >>= 7;
      head.push(byte | (rest ? 0x80 : 0));
    }
    parts.push(new Uint8Array(head));
    parts.push(new Uint8Array(await new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer()));
  }
  const joined = await concat(parts);
  return concat([joined, new Uint8Array(await crypto.subtle.digest("SHA-1", joined))]);
}

/**
 * Pushes one commit on `parent` to `branch` (whose tip is `old`, zeros for a new branch),
 * its tree holding `files` (path → text; the empty tree when none); the new tip. Throws when
 * the forge does not answer `ok`.
 *
 * @example const tip = await forgePush("acme/app", token, "factory/task/APP-1", "0".repeat(40), mainSha, "first", { ".forge/ci.sh": "exit 1\n" });
 */
export async function forgePush(
  fullName: string,
  token: string,
  branch: string,
  old: string,
  parent: string,
  message: string,
  files: Record<string, string> = {},
): Promise<string> {
  const objects: GitObject[] = [];
  const root = Object.keys(files).length ? await treeOf(files, objects) : EMPTY_TREE;
  const commit = await gitObject(
    COMMIT,
    new TextEncoder().encode(
      `tree ${root}\nparent ${parent}\nauthor A <a@example.test> 1700000000 +0000\ncommitter A <a@example.test> 1700000000 +0000\n\n${message}\n`,
    ),
  );
  objects.push(commit);
  const ref = `refs/heads/${branch}`;
  const line = `${old} ${commit.id} ${ref}\0report-status\n`;
  const list = new TextEncoder().encode(`${(line.length + 4).toString(16).padStart(4, "0")}${line}0000`);
  const answer = await fetch(`${testEnv.GITHUB_GIT_URL}/${fullName}.git/git-receive-pack`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`x-access-token:${token}`)}`, "content-type": "application/x-git-receive-pack-request" },
    body: await concat([list, await packOf(objects)]),
  });
  const text = await answer.text();
  if (!text.includes(`ok ${ref}`)) throw new Error(`the forge refused the push of ${ref} (HTTP ${answer.status}): ${text.slice(0, 300)}`);
  return commit.id;
}
