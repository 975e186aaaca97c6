import { describe, expect, it } from "vitest";
import { parseKeySet, sealSecret } from "./crypto";
import { openResolvedSecrets } from "./open";

const KEK = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

describe("opening the secrets of a generation", () => {
  it("SEC-002: every resolved secret is decrypted under its name", async () => {
    const keys = await parseKeySet(KEK);
    const sealed = await sealSecret(keys, { organisationId: "org", secretId: "s1" }, "value-one");
    const opened = await openResolvedSecrets(async () => keys, "org", [{ id: "s1", name: "ONE", sealed }]);
    expect(opened).toEqual({ ok: true, values: [{ name: "ONE", value: "value-one" }] });
  });

  it("SEC-004: a deleted secret, a missing key set or a foreign value fails the start, naming the secret only", async () => {
    const keys = await parseKeySet(KEK);
    const sealed = await sealSecret(keys, { organisationId: "org", secretId: "s1" }, "value-one");
    expect(await openResolvedSecrets(async () => keys, "org", [{ id: "s2", name: "GONE", sealed: undefined }])).toMatchObject({
      ok: false,
      code: "secret.missing",
    });
    const noKeys = await openResolvedSecrets(() => parseKeySet(undefined), "org", [{ id: "s1", name: "ONE", sealed }]);
    expect(noKeys).toMatchObject({ ok: false, code: "secret.undecryptable" });
    const moved = await openResolvedSecrets(async () => keys, "org", [{ id: "s9", name: "MOVED", sealed }]);
    expect(moved).toMatchObject({ ok: false, code: "secret.undecryptable" });
    expect(JSON.stringify([noKeys, moved])).not.toContain("value-one");
    // No secrets: nothing to decrypt, and no key set is needed.
    expect(await openResolvedSecrets(() => parseKeySet(undefined), "org", [])).toEqual({ ok: true, values: [] });
  });
});
