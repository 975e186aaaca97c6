import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalEnvironment, environmentFingerprint, imageFingerprint, LOCAL_FINGERPRINT_KEY, secretLabelKey } from "./fingerprint";
import { DEFAULT_IDLE_MS, type IdleState, idleAction, idleMs, VIEW_INPUT_RESTART_MS } from "./idle";
import { boxFor, ensureDecision, type SandboxMetadata, sandboxEnvironment, settingsDestroyBox, wantedSandbox } from "./metadata";
import { offersSandbox, usesSandbox } from "./tools";
import { cliSecret } from "./views";
import { bytesToMib, HOME_ARCHIVE_CEILING_BYTES, homeCapBytes, overLimit, workspaceLimitMib } from "./workspace";

const images = { lite: "registry/lite:1", standard: "registry/standard:1" };

async function wanted(overrides: Partial<Parameters<typeof wantedSandbox>[0]> = {}) {
  return wantedSandbox({
    agentId: "agent-1",
    flags: { browser: false, coding: true },
    browserLanguage: "en-US",
    environment: { API_KEY: "value-1" },
    secretIds: ["id-b", "id-a"],
    images,
    fingerprintKey: "k",
    ...overrides,
  });
}

describe("environment fingerprint", () => {
  it("OP-SBX-3: HMAC-SHA256 over the canonical sorted JSON, lowercase hex cut to 63 characters", async () => {
    const env = { B: "2", A: "1", HOME: "/home/agent" };
    expect(canonicalEnvironment(env)).toBe('{"A":"1","B":"2","HOME":"/home/agent"}');
    const expected = createHmac("sha256", "key").update('{"A":"1","B":"2","HOME":"/home/agent"}').digest("hex").slice(0, 63);
    expect(await environmentFingerprint(env, "key")).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{63}$/);
  });

  it("SBX-010: any name or value change, and the key, change the fingerprint; order does not", async () => {
    const base = await environmentFingerprint({ A: "1", B: "2" }, "key");
    expect(await environmentFingerprint({ B: "2", A: "1" }, "key")).toBe(base);
    expect(await environmentFingerprint({ A: "1", B: "3" }, "key")).not.toBe(base);
    expect(await environmentFingerprint({ A: "1", C: "2" }, "key")).not.toBe(base);
    expect(await environmentFingerprint({ A: "1", B: "2" }, "other")).not.toBe(base);
  });

  it("OP-SBX-3: without SANDBOX_FINGERPRINT_KEY the documented local default is the key", async () => {
    expect(await environmentFingerprint({ A: "1" }, undefined)).toBe(await environmentFingerprint({ A: "1" }, LOCAL_FINGERPRINT_KEY));
  });

  it("OP-SBX-4: a secret id's label-safe key is s- and 61 hex characters of its SHA-256", async () => {
    const key = await secretLabelKey("0b7e4a2c-5b1d-4f8e-9a3c-2d1e0f9a8b7c");
    expect(key).toMatch(/^s-[0-9a-f]{61}$/);
    expect(key).toHaveLength(63);
    expect(await secretLabelKey("other")).not.toBe(key);
  });

  it("SBX-020 / SEC-015: the metadata holds fingerprints and label keys, never a secret value", async () => {
    const metadata = await wanted({ environment: { API_KEY: "value-that-must-not-appear" } });
    expect(JSON.stringify(metadata)).not.toContain("value-that-must-not-appear");
    expect(metadata).toMatchObject({ agent_id: "agent-1", browser: false, coding: true, box: "standard" });
    expect(metadata.secret_keys).toEqual([await secretLabelKey("id-a"), await secretLabelKey("id-b")].sort());
    expect(metadata.image_fingerprint).toBe(await imageFingerprint(images.standard));
    expect(metadata).not.toHaveProperty("browser_language");
    expect((await wanted({ flags: { browser: true, coding: false } })).browser_language).toBe("en-US");
  });
});

describe("box and environment", () => {
  it("SBX-003, SBX-004: neither flag is the lite box, browser or coding the standard box", () => {
    expect(boxFor({ browser: false, coding: false })).toBe("lite");
    expect(boxFor({ browser: true, coding: false })).toBe("standard");
    expect(boxFor({ browser: false, coding: true })).toBe("standard");
  });

  it("SEC-005, SBX-006: every secret is a variable named after it; coding boxes get HOME, which no secret can shadow", () => {
    const secrets = [
      { name: "GITHUB_TOKEN", value: "ghp_1" },
      { name: "HOME", value: "/tmp/elsewhere" },
    ];
    expect(sandboxEnvironment(secrets, true)).toEqual({ GITHUB_TOKEN: "ghp_1", HOME: "/home/agent" });
    expect(sandboxEnvironment(secrets, false)).toEqual({ GITHUB_TOKEN: "ghp_1" });
  });

  it("OP-SEC-3: a secret stored under a reserved name before the rule never reaches the box", () => {
    const secrets = [
      { name: "GUEST_HOME", value: "/tmp/elsewhere" },
      { name: "LD_PRELOAD", value: "/home/agent/evil.so" },
      { name: "NODE_OPTIONS", value: "--require /home/agent/evil.js" },
      { name: "PYTHONSTARTUP", value: "/home/agent/evil.py" },
      { name: "SHOP_API_KEY", value: "k" },
    ];
    expect(sandboxEnvironment(secrets, false)).toEqual({ SHOP_API_KEY: "k" });
  });
});

describe("ensure decision", () => {
  it("SBX-032: no running box is created (over the saved home)", async () => {
    const want = await wanted();
    expect(ensureDecision(null, false, want)).toEqual({ action: "create" });
    expect(ensureDecision(want, false, want)).toEqual({ action: "create" });
  });

  it("SBX-010: a running box with the same metadata is reused", async () => {
    const want = await wanted();
    expect(ensureDecision(structuredClone(want), true, want)).toEqual({ action: "reuse" });
  });

  it("SBX-011 / SBX-012: a changed environment, flags, box, image or browser language recreates the box", async () => {
    const current = await wanted();
    const cases: Array<[SandboxMetadata, string[]]> = [
      [await wanted({ environment: { API_KEY: "value-2" } }), ["environment"]],
      [await wanted({ flags: { browser: true, coding: true } }), ["flags", "browser_language"]],
      [await wanted({ flags: { browser: false, coding: false } }), ["box", "flags", "image"]],
      [await wanted({ images: { ...images, standard: "registry/standard:2" } }), ["image"]],
    ];
    for (const [want, reasons] of cases) expect(ensureDecision(current, true, want)).toEqual({ action: "recreate", reasons });
    const browser = await wanted({ flags: { browser: true, coding: false } });
    expect(ensureDecision(browser, true, await wanted({ flags: { browser: true, coding: false }, browserLanguage: "de-DE" }))).toEqual({
      action: "recreate",
      reasons: ["browser_language"],
    });
  });

  it("SBX-021: a running box the object holds no metadata for is recreated", async () => {
    expect(ensureDecision(null, true, await wanted())).toEqual({ action: "recreate", reasons: ["metadata"] });
  });

  it("SBX-022: toggling browser or coding, or the language while browser is on, destroys an idle box", () => {
    const before = { browser: false, coding: false, browser_language: "en-US" };
    expect(settingsDestroyBox(before, { browser: true })).toBe(true);
    expect(settingsDestroyBox(before, { coding: true })).toBe(true);
    expect(settingsDestroyBox(before, { browser_language: "fr-FR" })).toBe(false);
    expect(settingsDestroyBox({ ...before, browser: true }, { browser_language: "fr-FR" })).toBe(true);
    expect(settingsDestroyBox({ ...before, browser: true }, { browser_language: "en-US", coding: false })).toBe(false);
  });
});

describe("idle timer", () => {
  const now = 1_000_000;
  const idle = 300_000;
  const state = (s: Partial<IdleState>): IdleState => ({ running: true, generating: false, armedAt: null, dueAt: null, ...s });

  it("SBX-028: five minutes after a generation ends, or after a view brings the box up", () => {
    expect(idleMs(undefined)).toBe(DEFAULT_IDLE_MS);
    expect(DEFAULT_IDLE_MS).toBe(5 * 60_000);
    expect(idleAction("generation_ended", state({}), now, idle)).toEqual({ action: "arm", dueAt: now + idle });
    expect(idleAction("view_opened", state({}), now, idle)).toEqual({ action: "arm", dueAt: now + idle });
    expect(idleAction("generation_ended", state({ running: false }), now, idle)).toEqual({ action: "keep" });
  });

  it("SBX-029: a new generation cancels the timer", () => {
    expect(idleAction("generation_started", state({ dueAt: now + 5 }), now, idle)).toEqual({ action: "cancel" });
    expect(idleAction("generation_started", state({}), now, idle)).toEqual({ action: "keep" });
  });

  it("SBX-023: a view opened while the agent generates leaves the timer to the generation's end", () => {
    expect(idleAction("view_opened", state({ generating: true }), now, idle)).toEqual({ action: "keep" });
  });

  it("SBX-030: view input restarts the timer at most once every 30 seconds", () => {
    const armed = now - (VIEW_INPUT_RESTART_MS - 1);
    expect(idleAction("view_input", state({ armedAt: armed, dueAt: armed + idle }), now, idle)).toEqual({ action: "keep" });
    const older = now - VIEW_INPUT_RESTART_MS;
    expect(idleAction("view_input", state({ armedAt: older, dueAt: older + idle }), now, idle)).toEqual({ action: "arm", dueAt: now + idle });
    expect(idleAction("view_input", state({ running: false }), now, idle)).toEqual({ action: "keep" });
    expect(idleAction("view_input", state({ generating: true }), now, idle)).toEqual({ action: "keep" });
  });

  it("SBX-035 / CANCEL-011: at object start a running box of an idle agent without a timer gets one", () => {
    expect(idleAction("object_started", state({}), now, idle)).toEqual({ action: "arm", dueAt: now + idle });
    expect(idleAction("object_started", state({ dueAt: now + 10 }), now, idle)).toEqual({ action: "keep" });
    expect(idleAction("object_started", state({ generating: true }), now, idle)).toEqual({ action: "keep" });
    expect(idleAction("object_started", state({ running: false }), now, idle)).toEqual({ action: "keep" });
  });

  it("SBX-028: SANDBOX_IDLE_MS shortens the timer; anything but a positive whole number is the default", () => {
    expect(idleMs("2000")).toBe(2000);
    for (const bad of ["", "0", "-5", "1.5", "soon"]) expect(idleMs(bad)).toBe(DEFAULT_IDLE_MS);
  });
});

describe("workspace and tools", () => {
  it("SBX-040: the limit is the smaller of the agent's and the host's; only a size above it is re-measured", () => {
    expect(workspaceLimitMib(4096, "2048")).toBe(2048);
    expect(workspaceLimitMib(100, "2048")).toBe(100);
    expect(workspaceLimitMib(4096, undefined)).toBe(2048);
    expect(overLimit(null, 100)).toBe(false);
    expect(overLimit(100, 100)).toBe(false);
    expect(overLimit(101, 100)).toBe(true);
  });

  it("SBX-040: a home's archive has one cap, the workspace limit in bytes, never above the ceiling", () => {
    expect(homeCapBytes(1, "2048")).toBe(1_048_576);
    expect(homeCapBytes(4096, "2048")).toBe(2048 * 1_048_576);
    expect(homeCapBytes(1_048_576, "1048576")).toBe(HOME_ARCHIVE_CEILING_BYTES);
  });

  it("SBX-041: sizes are stored in whole MiB, rounded up", () => {
    expect(bytesToMib(0)).toBe(0);
    expect(bytesToMib(1)).toBe(1);
    expect(bytesToMib(1_048_576)).toBe(1);
    expect(bytesToMib(1_048_577)).toBe(2);
  });

  it("GEN-007: only runs offering shell or a browser tool ensure the box", () => {
    expect(usesSandbox("shell")).toBe(true);
    expect(usesSandbox("browser_navigate")).toBe(true);
    expect(usesSandbox("note_write")).toBe(false);
    expect(offersSandbox([{ function: { name: "note_read" } }, { function: { name: "browser_tabs" } }])).toBe(true);
    expect(offersSandbox([{ function: { name: "note_read" } }])).toBe(false);
  });

  it("SBX-024: the CLI's secret path segment is the last line agent-cli-start prints", () => {
    expect(cliSecret("starting ttyd\n/t/Zk3q9XwPa1b2/\n")).toBe("Zk3q9XwPa1b2");
    expect(cliSecret("Zk3q9XwPa1b2")).toBe("Zk3q9XwPa1b2");
    expect(cliSecret("")).toBeNull();
    expect(cliSecret("bad path!\n")).toBeNull();
  });
});
