import { describe, expect, it } from "vitest";
import { Redactor } from "../output/redaction";
import { cutAtLine, DIFF_REDACTION_MARGIN_BYTES, diffCommand, readDiffAnswer, recordedRepos, tokenSecrets } from "./changes";
import { DIFF_MAX_BYTES } from "./types";

const bytes = (text: string) => new TextEncoder().encode(text).length;

const change = { name: "app", branch: "main", head_sha: "a1", start_sha: "s1", end_sha: "e1", files_changed: 2, insertions: 3, deletions: 1 };

describe("cutAtLine (REPO-022, OP-REPO-2)", () => {
  it("REPO-022: text within the cap is returned whole and not truncated", () => {
    expect(cutAtLine("a\nbb\n", 5)).toEqual({ text: "a\nbb\n", truncated: false });
  });

  it("OP-REPO-2: a longer text is cut after the last whole line that fits", () => {
    expect(cutAtLine("a\nbb\nccc\n", 5)).toEqual({ text: "a\nbb\n", truncated: true });
    expect(cutAtLine("a\nbb\nccc\n", 6)).toEqual({ text: "a\nbb\n", truncated: true });
  });

  it("OP-REPO-2: the cap counts UTF-8 bytes, not characters", () => {
    const text = "é\nüü\n";
    expect(bytes(text)).toBe(8);
    expect(cutAtLine(text, 7)).toEqual({ text: "é\n", truncated: true });
  });

  it("OP-REPO-2: a first line longer than the cap is cut on a whole character, never inside one", () => {
    const cut = cutAtLine(`${"€".repeat(10)}\n`, 10);
    expect(cut).toEqual({ text: "€€€", truncated: true });
  });

  it("REPO-022: a 300 KiB diff comes back at most 256 KiB and ending on a line", () => {
    const line = `+${"x".repeat(99)}\n`;
    const cut = cutAtLine(line.repeat(3000), DIFF_MAX_BYTES);
    expect(cut.truncated).toBe(true);
    expect(bytes(cut.text)).toBeLessThanOrEqual(DIFF_MAX_BYTES);
    expect(bytes(cut.text)).toBeGreaterThan(DIFF_MAX_BYTES - line.length);
    expect(cut.text.endsWith("\n")).toBe(true);
  });
});

describe("recordedRepos (REPO-018, OP-REPO-3)", () => {
  it("OP-REPO-3: a run without metadata.repos records none", () => {
    expect(recordedRepos({})).toEqual([]);
    expect(recordedRepos(null)).toEqual([]);
    expect(recordedRepos({ repos: "app" })).toEqual([]);
  });

  it("REPO-018: entries are kept in order; one that is not a diffstat is left out", () => {
    const other = { ...change, name: "docs", branch: null, head_sha: null };
    expect(recordedRepos({ repos: [change, { name: "broken", files_changed: -1 }, other] })).toEqual([change, other]);
  });
});

describe("diffCommand (REPO-024)", () => {
  it("REPO-024: asks guilds-code for the run's diff with room for redaction above the cap", () => {
    expect(diffCommand("r1", "app")).toBe(
      `/usr/local/bin/guilds-code diff --run 'r1' --repo 'app' --max-bytes '${DIFF_MAX_BYTES + DIFF_REDACTION_MARGIN_BYTES}'`,
    );
  });

  it("REPO-010: a repository name cannot break out of its argument", () => {
    expect(diffCommand("r1", "a'; rm -rf /; '")).toContain(`--repo 'a'\\''; rm -rf /; '\\'''`);
  });
});

describe("readDiffAnswer (REPO-022, REPO-025)", () => {
  const redactor = new Redactor([{ name: "API_KEY", value: "sk-live-123456" }]);

  it("REPO-025 / ERR-014: the diff is redacted with the agent's secret values", () => {
    const diff = "+++ b/.env\n+API_KEY=sk-live-123456\n";
    const answer = readDiffAnswer(`${JSON.stringify({ diff, truncated: false })}\n`, 0, "app", redactor);
    expect(answer).toEqual({ ok: true, repository: "app", diff: "+++ b/.env\n+API_KEY=[REDACTED:API_KEY]\n", truncated: false });
  });

  it("REPO-022: the box's truncation flag is kept, and an over-long answer is cut again at the cap", () => {
    expect(readDiffAnswer(JSON.stringify({ diff: "+a\n", truncated: true }), 0, "app", Redactor.none)).toMatchObject({ ok: true, truncated: true });
    const long = `+${"y".repeat(1022)}\n`.repeat(300); // 1 KiB lines: 256 fit exactly
    const answer = readDiffAnswer(JSON.stringify({ diff: long, truncated: false }), 0, "app", Redactor.none);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.truncated).toBe(true);
    expect(bytes(answer.diff)).toBe(DIFF_MAX_BYTES);
  });

  it("REPO-025: a secret straddling the cap is redacted before the cut, never shown in part", () => {
    const secret = "sk-live-123456";
    const filler = `+${"z".repeat(DIFF_MAX_BYTES - 10)}\n`;
    const answer = readDiffAnswer(JSON.stringify({ diff: `${filler}+${secret}\n`, truncated: false }), 0, "app", redactor);
    if (!answer.ok) throw new Error(answer.message);
    expect(answer.diff).not.toContain("sk-live");
  });

  it("REPO-023: exit 4 says the run's checkpoint, or the work tree, is missing in the box, naming the repository", () => {
    const missingRef = '{"error":"checkpoint.missing","message":"app has no refs/guild/runs/r1/start"}\n';
    const answer = readDiffAnswer(missingRef, 4, "app", Redactor.none);
    expect(answer).toMatchObject({ ok: false, code: "repository.checkpoint_missing" });
    if (answer.ok) return;
    expect(answer.message).toContain("of app for this run");
    expect(answer.message).toContain("app has no refs/guild/runs/r1/start");
    const gone = readDiffAnswer('{"error":"repository.missing","message":"/home/agent/repos/app is not a git work tree"}', 4, "app", Redactor.none);
    expect(gone).toMatchObject({ ok: false, code: "repository.missing", message: expect.stringContaining("is not a git work tree") });
  });

  it("HARDEN: any other failure is repository.diff_failed with the exit code and the last line, redacted", () => {
    const answer = readDiffAnswer("bash: guilds-code: command not found (sk-live-123456)\n", 127, "app", redactor);
    expect(answer).toMatchObject({ ok: false, code: "repository.diff_failed" });
    if (answer.ok) return;
    expect(answer.message).toContain("exit 127");
    expect(answer.message).toContain("command not found");
    expect(answer.message).not.toContain("sk-live");
    // Output that is not the JSON answer is a failure even with exit 0.
    expect(readDiffAnswer("diff --git a/x b/x\n", 0, "app", Redactor.none)).toMatchObject({ ok: false, code: "repository.diff_failed" });
  });

  it("HARDEN: stderr lines around the answer do not hide it", () => {
    const out = `warning: CRLF will be replaced\n${JSON.stringify({ diff: "+b\n", truncated: false })}\n`;
    expect(readDiffAnswer(out, 0, "app", Redactor.none)).toMatchObject({ ok: true, diff: "+b\n" });
  });
});

describe("tokenSecrets (REPO-025: the box's tokens)", () => {
  it("REPO-025: the box's installation tokens join the diff's redaction set, named after their repository", () => {
    const file = JSON.stringify({ "github.com/acme/app": { token: "ghs_abcdef123456", expires_at: "2026-12-01T02:00:00Z" } });
    const secrets = tokenSecrets(file);
    expect(secrets).toEqual([{ name: "github:github.com/acme/app", value: "ghs_abcdef123456" }]);
    const answer = readDiffAnswer(
      JSON.stringify({ diff: "+url=https://x-access-token:ghs_abcdef123456@github.com\n", truncated: false }),
      0,
      "app",
      new Redactor(secrets),
    );
    expect(JSON.stringify(answer)).not.toContain("ghs_abcdef123456");
  });

  it("HARDEN: a file that is not the tokens' shape gives no entries", () => {
    for (const text of ["", "not json", "[]", "null", '{"h/o/r": {"token": 5}}']) expect(tokenSecrets(text), text).toEqual([]);
  });
});
