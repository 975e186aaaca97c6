/**
 * The guest's pure parts: path rules, the output budget, the cache exclusions, NDJSON framing,
 * exec request validation and the token check.
 */
import { describe, expect, it } from "vitest";
import { bearerMatches } from "./auth";
import { isExcludedDir } from "./cache-exclusions";
import { DEFAULT_EXEC_LIMITS, parseExecRequest } from "./exec-request";
import { frame, LineReader } from "./ndjson";
import { OutputBudget, truncationMarker, utf8Boundary } from "./output-limit";
import { checkAbsolutePath } from "./paths";
import { isBrowserLanguage } from "./services-config";

const limits = { ...DEFAULT_EXEC_LIMITS, defaultCwd: "/home/agent" };
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("OP-SBX-9: file API paths", () => {
  it("OP-SBX-9: absolute paths are normalised", () => {
    expect(checkAbsolutePath("/home/agent/../agent/a//b/")).toEqual({ ok: true, path: "/home/agent/a/b" });
    expect(checkAbsolutePath("/")).toEqual({ ok: true, path: "/" });
    expect(checkAbsolutePath("/../../etc")).toEqual({ ok: true, path: "/etc" });
  });
  it("OP-SBX-9: relative, empty and NUL paths are refused with their own codes", () => {
    expect(checkAbsolutePath("home/agent")).toMatchObject({ ok: false, code: "path.relative" });
    expect(checkAbsolutePath("")).toMatchObject({ ok: false, code: "path.missing" });
    expect(checkAbsolutePath(null, "from")).toMatchObject({ ok: false, code: "path.missing", message: "from is required" });
    expect(checkAbsolutePath("/a\0b")).toMatchObject({ ok: false, code: "path.invalid" });
  });
});

describe("SBX-GUEST: output budget", () => {
  it("SBX-GUEST: output within the limit passes whole; the chunk that crosses it is cut once", () => {
    const budget = new OutputBudget(10);
    expect(text(budget.take(bytes("hello")).kept)).toBe("hello");
    const crossing = budget.take(bytes("world!!"));
    expect(text(crossing.kept)).toBe("world");
    expect(crossing.cutHere).toBe(true);
    expect(budget.truncated).toBe(true);
    const after = budget.take(bytes("more"));
    expect(after.kept.length).toBe(0);
    expect(after.cutHere).toBe(false);
  });
  it("SBX-GUEST: a cut never splits a UTF-8 character", () => {
    const euro = bytes("a€b"); // a, 3 bytes of €, b
    expect(utf8Boundary(euro, 2)).toBe(1);
    expect(utf8Boundary(euro, 4)).toBe(4);
    const budget = new OutputBudget(3);
    expect(text(budget.take(euro).kept)).toBe("a");
  });
  it("SBX-GUEST: the marker names the limit", () => {
    expect(truncationMarker(1024)).toContain("output truncated: limit of 1024 bytes");
  });
});

describe("OP-SBX-5: workspace size exclusions", () => {
  it("OP-SBX-5: Chromium caches under .browser and the home's .cache are excluded", () => {
    expect(isExcludedDir([".browser", "Default", "Cache"])).toBe(true);
    expect(isExcludedDir([".browser", "Default", "Code Cache"])).toBe(true);
    expect(isExcludedDir([".browser", "GPUCache"])).toBe(true);
    expect(isExcludedDir([".cache"])).toBe(true);
  });
  it("OP-SBX-5: same names elsewhere, and the profile itself, count", () => {
    expect(isExcludedDir(["project", "Cache"])).toBe(false);
    expect(isExcludedDir(["project", ".cache"])).toBe(false);
    expect(isExcludedDir([".browser"])).toBe(false);
    expect(isExcludedDir([".browser", "Default"])).toBe(false);
    expect(isExcludedDir([])).toBe(false);
  });
});

describe("SBX-GUEST: NDJSON framing", () => {
  it("SBX-GUEST: a frame is one line even when the data holds newlines", () => {
    const line = frame({ type: "output", stream: "stdout", data: "a\nb\n" });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ type: "output", stream: "stdout", data: "a\nb\n" });
  });
  it("SBX-GUEST: the reader joins lines split across chunks", () => {
    const reader = new LineReader();
    expect(reader.push('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(reader.pending).toBe('{"b"');
    expect(reader.push(":2}\n")).toEqual(['{"b":2}']);
    expect(reader.pending).toBe("");
  });
});

describe("SBX-GUEST: exec request validation", () => {
  it("SBX-GUEST: defaults fill cwd, timeout and output limit", () => {
    expect(parseExecRequest({ command: "ls" }, limits)).toEqual({
      ok: true,
      request: { command: "ls", cwd: "/home/agent", env: {}, timeoutMs: limits.defaultTimeoutMs, maxOutputBytes: limits.defaultOutputBytes },
    });
  });
  it("SBX-GUEST: bad commands, cwd, env names and limits are named in the error", () => {
    expect(parseExecRequest({ command: " " }, limits)).toMatchObject({ ok: false, message: "command must be a non-empty string" });
    expect(parseExecRequest({ command: "ls", cwd: "tmp" }, limits)).toMatchObject({ ok: false, code: "path.relative" });
    expect(parseExecRequest({ command: "ls", env: { "BAD-NAME": "x" } }, limits)).toMatchObject({ ok: false, message: expect.stringContaining("BAD-NAME") });
    expect(parseExecRequest({ command: "ls", env: { A: 1 } }, limits)).toMatchObject({ ok: false, message: "env A must be a string" });
    expect(parseExecRequest({ command: "ls", timeout_ms: 0 }, limits)).toMatchObject({ ok: false, message: "timeout_ms must be a positive integer" });
    expect(parseExecRequest({ command: "ls", max_output_bytes: limits.maxOutputBytes + 1 }, limits)).toMatchObject({ ok: false });
    expect(parseExecRequest([], limits)).toMatchObject({ ok: false, code: "exec.invalid" });
  });
});

describe("SBX-GUEST: bearer token", () => {
  it("SBX-GUEST: only the exact token with the Bearer scheme passes", () => {
    const token = "0123456789abcdef-token";
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
    expect(bearerMatches(undefined, token)).toBe(false);
    expect(bearerMatches("Bearer ", token)).toBe(false);
  });
});

describe("SBX-016: browser language", () => {
  it("SBX-016: language tags pass; anything that could smuggle another flag or a command does not", () => {
    for (const tag of ["en-US", "de", "pt-BR", "zh-Hant-TW", "sr-Latn-RS"]) expect(isBrowserLanguage(tag), tag).toBe(true);
    for (const bad of ["", "en US", "en-US --no-sandbox", "--lang=x", "en_US", "e", "en-US;ls", "english-language-tag-too-long"]) {
      expect(isBrowserLanguage(bad), bad).toBe(false);
    }
  });
});
