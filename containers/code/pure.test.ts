import { describe, expect, it } from "vitest";
import { parseShortstat, RUN_ID } from "./checkpoint";
import { classifyCloneFailure, DIR_NAME, failureReason, urlHost } from "./clone";
import { credentialAnswer, parseCredentialRequest } from "./credential";
import { cutAtLine } from "./diff";
import { joinFileChanges, parseNameStatus, parseNumstat } from "./file-changes";
import { ABSOLUTE_DIR, BRANCH_NAME, REMOTE_URL } from "./task-args";
import { parseLsRemote, refusalOf } from "./task-git";
import { droppedKeys, workspaceConfig } from "./workspace";

describe("guilds-code's pure parts", () => {
  it("REPO-018: the diffstat comes from git's shortstat, singular and plural, any part missing", () => {
    expect(parseShortstat(" 6 files changed, 5 insertions(+), 2 deletions(-)\n")).toEqual({ files_changed: 6, insertions: 5, deletions: 2 });
    expect(parseShortstat(" 1 file changed, 1 insertion(+)\n")).toEqual({ files_changed: 1, insertions: 1, deletions: 0 });
    expect(parseShortstat(" 1 file changed, 1 deletion(-)\n")).toEqual({ files_changed: 1, insertions: 0, deletions: 1 });
    expect(parseShortstat("")).toEqual({ files_changed: 0, insertions: 0, deletions: 0 });
  });

  it("RUN-019: the end checkpoint's files join name-status and numstat by path: renames, copies, binary files, odd names", () => {
    const nameStatus = "M\0a.txt\0D\0b.txt\0A\0new\nline.txt\0R087\0old name.txt\0moved/name.txt\0C100\0src.ts\0copy.ts\0A\0blob.bin\0T\0link\0";
    const numstat =
      "2\t0\ta.txt\0" +
      "0\t1\tb.txt\0" +
      "1\t0\tnew\nline.txt\0" +
      "1\t1\t\0old name.txt\0moved/name.txt\0" +
      "0\t0\t\0src.ts\0copy.ts\0" +
      "-\t-\tblob.bin\0" +
      "1\t1\tlink\0";
    expect(parseNameStatus(nameStatus)).toHaveLength(7);
    expect(parseNumstat(numstat).get("moved/name.txt")).toEqual({ insertions: 1, deletions: 1 });
    const { files, truncated } = joinFileChanges(nameStatus, numstat, 100);
    expect(truncated).toBe(false);
    expect(files).toEqual([
      { path: "a.txt", change: "modified", old_path: null, insertions: 2, deletions: 0 },
      { path: "b.txt", change: "deleted", old_path: null, insertions: 0, deletions: 1 },
      { path: "blob.bin", change: "added", old_path: null, insertions: null, deletions: null },
      { path: "copy.ts", change: "copied", old_path: "src.ts", insertions: 0, deletions: 0 },
      { path: "link", change: "type_changed", old_path: null, insertions: 1, deletions: 1 },
      { path: "moved/name.txt", change: "renamed", old_path: "old name.txt", insertions: 1, deletions: 1 },
      { path: "new\nline.txt", change: "added", old_path: null, insertions: 1, deletions: 0 },
    ]);
    expect(joinFileChanges(nameStatus, numstat, 2)).toMatchObject({ truncated: true, files: [{ path: "a.txt" }, { path: "b.txt" }] });
    expect(joinFileChanges("", "", 10)).toEqual({ files: [], truncated: false });
  });

  it("OP-REPO-2: a diff over the limit is cut after the last whole line that fits; one that fits is whole", () => {
    const text = Buffer.from("ab\ncd\nef\n");
    expect(cutAtLine(text, 9)).toEqual({ text, truncated: false });
    expect(cutAtLine(text, 8).text.toString()).toBe("ab\ncd\n");
    expect(cutAtLine(text, 6)).toEqual({ text: Buffer.from("ab\ncd\n"), truncated: true });
    expect(cutAtLine(text, 2)).toEqual({ text: Buffer.from(""), truncated: true });
    // Multi-byte characters are never split: cuts happen only after a newline.
    const wide = Buffer.from("äöü\nß€\n");
    expect(cutAtLine(wide, wide.length - 1).text.toString()).toBe("äöü\n");
  });

  it("REPO-008: a clone that wanted credentials is anonymous without a token entry and token_unused with one", () => {
    const url = "https://github.com/acme/app.git";
    const prompt = "Cloning into 'x'...\nfatal: could not read Username for 'https://github.com': terminal prompts disabled\n";
    const refused = "remote: Invalid username or password.\nfatal: Authentication failed for 'https://github.com/acme/app.git/'\n";
    const keys: string[] = [];
    const none = (key: string) => {
      keys.push(key);
      return undefined;
    };
    expect(classifyCloneFailure(url, prompt, undefined, none)).toEqual({
      error: "repository.clone",
      reason: "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
      credentials: "anonymous",
    });
    expect(keys).toEqual(["github.com/acme/app"]);
    expect(classifyCloneFailure(url, refused, undefined, () => ({ token: "t" }))).toMatchObject({
      credentials: "token_unused",
      reason: expect.stringContaining("Authentication failed"),
    });
    expect(classifyCloneFailure(url, "fatal: repository 'x' not found\n", undefined, none)).toMatchObject({ credentials: null });
    expect(classifyCloneFailure(url, "", 600, none)).toEqual({ error: "repository.clone", reason: "timeout after 600 s", credentials: null });
    expect(failureReason("x".repeat(600)).length).toBe(500);
  });

  it("REPO-007: the host of http, ssh and scp-like URLs, for re-pointing within one host only", () => {
    expect(urlHost("https://GitHub.com/a/b.git")).toBe("github.com");
    expect(urlHost("http://172.17.0.1:8123/git/a/b.git")).toBe("172.17.0.1:8123");
    expect(urlHost("ssh://git@github.com/a/b.git")).toBe("github.com");
    expect(urlHost("git@github.com:a/b.git")).toBe("github.com");
  });

  it("OP-REPO-1: the credential helper answers the token for the requested path only, over http(s) only", () => {
    const request = parseCredentialRequest("protocol=https\nhost=github.com\npath=acme/app.git\n\n");
    expect(request).toEqual({ protocol: "https", host: "github.com", path: "acme/app.git" });
    const lookup = (key: string) => (key === "github.com/acme/app" ? { token: "ghs_x", expires_at: "" } : undefined);
    expect(credentialAnswer(request, lookup)).toBe("username=x-access-token\npassword=ghs_x\n");
    expect(credentialAnswer({ ...request, path: "acme/other.git" }, lookup)).toBe("");
    expect(credentialAnswer({ protocol: "https", host: "github.com" }, lookup)).toBe("");
    expect(credentialAnswer({ ...request, protocol: "ssh" }, lookup)).toBe("");
  });

  it("HARDEN: run ids and folder names cannot leave their ref or folder", () => {
    for (const bad of ["../x", "a/b", "a..b", ".hidden", "", "a b", "x.lock"]) expect(RUN_ID.test(bad), bad).toBe(false);
    for (const bad of ["..", "../x", "a/b", ".hidden", "", "a b"]) expect(DIR_NAME.test(bad), bad).toBe(false);
    expect(RUN_ID.test("7f3a9c10-5d1e-4b7a-9a61-2f1c0e9d4b11")).toBe(true);
    expect(DIR_NAME.test("my.repo-name_2")).toBe(true);
  });
});

describe("guilds-code's task parts", () => {
  it("TASK-013: the workspace's configuration is written whole, quoted, and what the old one held beyond it is reported", () => {
    const text = workspaceConfig({ remote: "http://git.gateway.internal/tasks/t1/acme/app.git", branch: "factory/task/APP-1", name: 'A "quoted" \\ name' });
    expect(text).toContain('\turl = "http://git.gateway.internal/tasks/t1/acme/app.git"');
    expect(text).toContain('[branch "factory/task/APP-1"]');
    expect(text).toContain('\tname = "A \\"quoted\\" \\\\ name"');
    expect(text).not.toContain("email");
    const fresh: Array<[string, string]> = [
      ["remote.origin.url", "u"],
      ["core.bare", "false"],
    ];
    const old: Array<[string, string]> = [
      ["remote.origin.url", "other"],
      ["core.bare", "false"],
      ["core.fsmonitor", "x"],
      ["core.fsmonitor", "y"],
    ];
    expect(droppedKeys(old, fresh)).toEqual(["core.fsmonitor", "remote.origin.url"]);
  });

  it("TASK-017: a refused update's reason comes from git's porcelain output; ls-remote answers only the exact refs", () => {
    expect(refusalOf("To http://x/a.git\n!\trefs/heads/f:refs/heads/f\t[remote rejected] (force push not allowed)\nDone\n")).toBe("force push not allowed");
    expect(refusalOf("!\trefs/heads/f:refs/heads/f\t[rejected] (stale info)\n")).toBe("stale info");
    expect(refusalOf("To x\n=\trefs/heads/f:refs/heads/f\t[up to date]\nDone\n")).toBeUndefined();
    const refs = parseLsRemote("a1\trefs/heads/main\nb2\trefs/heads/x/refs/heads/main\n", ["refs/heads/main", "refs/heads/factory/task/A-1"]);
    expect([...refs]).toEqual([["refs/heads/main", "a1"]]);
  });

  it("TASK-013: branch names, folders and remotes that could be read as options or leave their place are usage errors", () => {
    for (const good of ["main", "factory/task/APP-7", "release/1.x", "feature_a.b"]) expect(BRANCH_NAME.test(good), good).toBe(true);
    for (const bad of ["-x", "--upload-pack=x", "a..b", "a//b", "a/", "a.lock", "a@{1}", ".a", "a/.b", "a b", ""])
      expect(BRANCH_NAME.test(bad), bad).toBe(false);
    for (const good of ["/data/workspace", "/tmp/x.y/work"]) expect(ABSOLUTE_DIR.test(good), good).toBe(true);
    for (const bad of ["/", "data", "/data/../etc", "/data/./x", "/data/", "/data//x"]) expect(ABSOLUTE_DIR.test(bad), bad).toBe(false);
    for (const bad of ["ext::sh -c x", "ssh://h/x", "git@h:x", "http://a b"]) expect(REMOTE_URL.test(bad), bad).toBe(false);
    expect(REMOTE_URL.test("http://git.gateway.internal/tasks/t1/acme/app.git")).toBe(true);
  });
});
