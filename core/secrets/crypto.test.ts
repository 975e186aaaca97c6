import { describe, expect, it } from "vitest";
import { openSecret, parseKeySet, SecretDecryptError, sealSecret } from "./crypto";

const keyOf = (fill: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)));
const row = { organisationId: "org-1", secretId: "secret-1" };

describe("secret encryption (OP-SEC-4)", () => {
  it("SEC-002: a sealed value decrypts back, and the stored text is not the value", async () => {
    const keys = await parseKeySet(keyOf(1));
    const sealed = await sealSecret(keys, row, "hunter2-value");
    expect(sealed.keyVersion).toBe("1");
    expect(sealed.ciphertext).not.toContain("hunter2");
    expect(await openSecret(keys, row, sealed)).toBe("hunter2-value");
  });

  it("OP-SEC-4: each value gets its own IV", async () => {
    const keys = await parseKeySet(keyOf(1));
    const [a, b] = await Promise.all([sealSecret(keys, row, "same"), sealSecret(keys, row, "same")]);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it("SEC-004: an altered ciphertext is detected", async () => {
    const keys = await parseKeySet(keyOf(1));
    const sealed = await sealSecret(keys, row, "value");
    const bytes = atob(sealed.ciphertext);
    const flipped = btoa(String.fromCharCode(bytes.charCodeAt(0) ^ 1) + bytes.slice(1));
    await expect(openSecret(keys, row, { ...sealed, ciphertext: flipped })).rejects.toThrow(SecretDecryptError);
  });

  it("SEC-004: a value moved to another row or organisation does not decrypt", async () => {
    const keys = await parseKeySet(keyOf(1));
    const sealed = await sealSecret(keys, row, "value");
    await expect(openSecret(keys, { ...row, secretId: "secret-2" }, sealed)).rejects.toThrow(SecretDecryptError);
    await expect(openSecret(keys, { ...row, organisationId: "org-2" }, sealed)).rejects.toThrow(SecretDecryptError);
  });

  it("OP-SEC-4: rotation encrypts with the newest key and still decrypts older versions", async () => {
    const old = await parseKeySet(`v1:${keyOf(1)}`);
    const sealedOld = await sealSecret(old, row, "old value");
    const rotated = await parseKeySet(`v1:${keyOf(1)},v2:${keyOf(2)}`);
    expect(rotated.current).toBe("v2");
    expect(await openSecret(rotated, row, sealedOld)).toBe("old value");
    const sealedNew = await sealSecret(rotated, row, "new value");
    expect(sealedNew.keyVersion).toBe("v2");
    // The previous key may also come from SECRETS_KEK_PREVIOUS.
    const split = await parseKeySet(`v2:${keyOf(2)}`, `v1:${keyOf(1)}`);
    expect(await openSecret(split, row, sealedOld)).toBe("old value");
  });

  it("OP-SEC-4: the documented rotation (docs/deploying.md) opens every value sealed under the unversioned key: v1 and 1 are one version", async () => {
    const unversioned = await parseKeySet(keyOf(1));
    const sealedOld = await sealSecret(unversioned, row, "old value");
    expect(sealedOld.keyVersion).toBe("1");
    const rotated = await parseKeySet(`v1:${keyOf(1)},v2:${keyOf(2)}`);
    expect(await openSecret(rotated, row, sealedOld)).toBe("old value");
    // And the other way round: a value sealed as v2 opens under a plain "2".
    const sealedNew = await sealSecret(rotated, row, "new value");
    expect(await openSecret(await parseKeySet(`1:${keyOf(1)},2:${keyOf(2)}`), row, sealedNew)).toBe("new value");
    // Moved to SECRETS_KEK_PREVIOUS, the old key keeps its meaning.
    expect(await openSecret(await parseKeySet(`v2:${keyOf(2)}`, `v1:${keyOf(1)}`), row, sealedOld)).toBe("old value");
  });

  it("OP-SEC-4: a key version given twice, in either spelling or across both variables, is refused with a clear error", async () => {
    await expect(parseKeySet(`v1:${keyOf(1)},v1:${keyOf(2)}`)).rejects.toThrow("name key version v1 twice");
    await expect(parseKeySet(`1:${keyOf(1)},v1:${keyOf(2)}`)).rejects.toThrow("(1 and v1 are one version)");
    await expect(parseKeySet(`v2:${keyOf(2)}`, `v2:${keyOf(3)}`)).rejects.toThrow("name key version v2 twice");
    await expect(parseKeySet(`v1:${keyOf(1)},v2:${keyOf(2)}`, keyOf(1))).rejects.toThrow("(1 and v1 are one version)");
  });

  it("SEC-004: a value under an unknown or wrong key version does not decrypt", async () => {
    const keys = await parseKeySet(`v1:${keyOf(1)}`);
    const sealed = await sealSecret(keys, row, "value");
    await expect(openSecret(keys, row, { ...sealed, keyVersion: "v9" })).rejects.toMatchObject({ reason: "key_missing" });
    const other = await parseKeySet(`v1:${keyOf(3)}`);
    await expect(openSecret(other, row, sealed)).rejects.toMatchObject({ reason: "tampered" });
  });

  it("OP-SEC-4: a missing, short or malformed key is refused", async () => {
    await expect(parseKeySet(undefined)).rejects.toThrow("SECRETS_KEK is not set");
    await expect(parseKeySet(btoa("short"))).rejects.toThrow("32 bytes");
    await expect(parseKeySet(`v1:${keyOf(1)},plain`)).rejects.toThrow("version:base64");
  });
});
