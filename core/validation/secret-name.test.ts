import { describe, expect, it } from "vitest";
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
});
