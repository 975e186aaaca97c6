import { mkdtempSync, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseGuestSettings, readGuestSettings } from "./config";

describe("the guest's settings file", () => {
  it("OP-SEC-3: holds a JSON object of GUEST_* strings; anything else is refused with what is wrong", () => {
    expect(parseGuestSettings('{"GUEST_TOKEN":"t","GUEST_HOME":"/home/agent"}')).toEqual({ GUEST_TOKEN: "t", GUEST_HOME: "/home/agent" });
    expect(parseGuestSettings("")).toBe("is not JSON");
    expect(parseGuestSettings("[]")).toBe("must hold a JSON object");
    expect(parseGuestSettings('{"GUEST_PORT":8080}')).toBe("GUEST_PORT must be a string");
    expect(parseGuestSettings('{"LD_PRELOAD":"x"}')).toBe('names "LD_PRELOAD", which is not a guest setting (GUEST_*)');
  });

  it("OP-SEC-3: is removed once read, so no command finds the token there later", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "guest-settings-")), "settings.json");
    writeFileSync(file, '{"GUEST_TOKEN":"a-token-of-sixteen-chars"}', { mode: 0o600 });
    expect(readGuestSettings(file)).toEqual({ GUEST_TOKEN: "a-token-of-sixteen-chars" });
    await expect(access(file)).rejects.toMatchObject({ code: "ENOENT" });
    expect(readGuestSettings(file)).toMatch(/^cannot read .*settings\.json/);
  });
});
