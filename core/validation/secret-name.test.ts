import { describe, expect, it } from "vitest";
import { SecretCreate, SecretPatch } from "./secret";
import { reservedSecretName } from "./secret-name";

describe("reserved secret names", () => {
  it("OP-SEC-3: names the box, a shell, the loader or a runtime reads are refused, each with its reason", () => {
    for (const name of ["GUEST_HOME", "GUEST_MAX_ARCHIVE_BYTES", "GUEST_CONFIG", "LD_PRELOAD", "LD_LIBRARY_PATH", "NODE_OPTIONS", "BASH_ENV", "ENV"]) {
      expect(reservedSecretName(name), name).toMatch(/^is reserved/);
    }
    for (const name of ["PATH", "HOME", "PYTHONPATH", "PYTHONSTARTUP", "GUILD_RUN_ID", "GUILDS_SCRIPT_ARGS", "GIT_SSH_COMMAND", "SSL_CERT_FILE"]) {
      expect(reservedSecretName(name), name).toMatch(/^is reserved/);
    }
    expect(reservedSecretName("GUEST_HOME")).toContain("GUEST_");
  });

  it("OP-SEC-3: ordinary names, including ones that merely contain a reserved word, are allowed", () => {
    for (const name of ["SHOP_API_KEY", "GITHUB_TOKEN", "MY_GUEST_HOME", "NODE_AUTH_TOKEN", "OPENAI_API_KEY", "HOME_ASSISTANT_TOKEN", "ENVIRONMENT"]) {
      expect(reservedSecretName(name), name).toBeNull();
    }
  });

  it("OP-SEC-3: the create and patch bodies refuse a reserved name on the name field", () => {
    const created = SecretCreate.safeParse({ name: "GUEST_HOME", value: "/tmp/elsewhere" });
    expect(created.success).toBe(false);
    expect(created.error?.issues).toEqual([expect.objectContaining({ path: ["name"], message: expect.stringMatching(/^is reserved/) })]);
    expect(SecretPatch.safeParse({ name: "NODE_OPTIONS" }).success).toBe(false);
    expect(SecretCreate.safeParse({ name: "SHOP_API_KEY", value: "k" }).success).toBe(true);
  });
});
