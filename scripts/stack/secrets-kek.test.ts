import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseKeySet } from "../../core/secrets/crypto";
import { ensureSecretsKek } from "./secrets-kek";

describe("the local stack's SECRETS_KEK", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("OP-SEC-4: is made once per state folder, readable only by its owner, and reused by the next start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kek-"));
    dirs.push(dir);
    const file = join(dir, "secrets-kek");
    const first = ensureSecretsKek(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(ensureSecretsKek(file)).toBe(first);
    expect((await parseKeySet(first)).current).toBe("v1");
    const other = mkdtempSync(join(tmpdir(), "kek-"));
    dirs.push(other);
    expect(ensureSecretsKek(join(other, "secrets-kek"))).not.toBe(first);
  });
});
