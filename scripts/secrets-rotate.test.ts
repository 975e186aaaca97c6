import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganisation } from "../core/db/organisations";
import { mcpConnections, mcpOauthStates, secrets } from "../core/db/schema";
import { openCredential, sealCredential, verifierBinding } from "../core/mcp/credentials";
import { type KeySet, openSecret, parseKeySet, sealSecret } from "../core/secrets/crypto";
import { migrateDatabase } from "./db/migrate";
import { withDatabase } from "./stack/operator";
import { type Database, startDatabase } from "./stack/postgres";
import { removeStateDir } from "./stack/postgres-home";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const keyOf = (fill: number) => Buffer.alloc(32, fill).toString("base64");

/** `npm run secrets:rotate -- --env local` as an operator runs it, with these keys exported. */
async function rotate(databaseUrl: string, kek: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("npm", ["run", "--silent", "secrets:rotate", "--", "--env", "local"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, SECRETS_KEK: kek, SECRETS_KEK_PREVIOUS: "" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const stored = (url: string) => withDatabase(url, (db) => db.select().from(secrets));

/** Every stored value, opened with `keys` alone. */
async function openAll(url: string, keys: KeySet): Promise<Record<string, string>> {
  const opened: Record<string, string> = {};
  for (const row of await stored(url)) opened[row.name] = await openSecret(keys, { organisationId: row.organisationId, secretId: row.id }, row);
  return opened;
}

describe("npm run secrets:rotate (OP-SEC-4)", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-rotate-pg-"));
  let db: Database;
  beforeAll(async () => {
    db = await startDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, stateDir });
    await migrateDatabase(db.url);
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
    removeStateDir(stateDir);
  });

  it("OP-SEC-4: two rotations in a row: every value still opens, sealed under the newest key, starting from the unversioned key", async () => {
    const values = { FIRST_KEY: "value-under-the-unversioned-key", SECOND_KEY: "value-under-v1", OTHER_ORG_KEY: "another-organisation" };
    await withDatabase(db.url, async (pg) => {
      const { organisation_id: a } = await createOrganisation(pg, "Rotation A");
      const { organisation_id: b } = await createOrganisation(pg, "Rotation B");
      // The first deployment (docs/deploying.md): one unversioned key, its values stored as version "1".
      const unversioned = await parseKeySet(keyOf(1));
      const versioned = await parseKeySet(`v1:${keyOf(1)}`);
      for (const [name, organisationId, keys] of [
        ["FIRST_KEY", a, unversioned],
        ["SECOND_KEY", a, versioned],
        ["OTHER_ORG_KEY", b, unversioned],
      ] as const) {
        const id = crypto.randomUUID();
        await pg.insert(secrets).values({ id, organisationId, name, ...(await sealSecret(keys, { organisationId, secretId: id }, values[name])) });
      }
    });
    expect((await stored(db.url)).map((r) => r.keyVersion).sort()).toEqual(["1", "1", "v1"]);

    const first = await rotate(db.url, `v1:${keyOf(1)},v2:${keyOf(2)}`);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("3 sealed again under key v2, 0 already under it");
    expect((await stored(db.url)).map((r) => r.keyVersion)).toEqual(["v2", "v2", "v2"]);
    expect(await openAll(db.url, await parseKeySet(`v2:${keyOf(2)}`))).toEqual(values);

    // v1 dropped, v3 added: the second rotation needs v2 only.
    const second = await rotate(db.url, `v2:${keyOf(2)},v3:${keyOf(3)}`);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("3 sealed again under key v3, 0 already under it");
    expect(await openAll(db.url, await parseKeySet(`v3:${keyOf(3)}`))).toEqual(values);

    // Run again, nothing left to do.
    expect((await rotate(db.url, `v2:${keyOf(2)},v3:${keyOf(3)}`)).stdout).toContain("0 sealed again under key v3, 3 already under it");
    for (const out of [first, second]) expect(`${out.stdout}${out.stderr}`).not.toMatch(/value-under|another-organisation/);
  }, 120_000);

  it("OP-SEC-4: a key version given twice is refused before anything is read or written", async () => {
    const before = await stored(db.url);
    const refused = await rotate(db.url, `1:${keyOf(3)},v1:${keyOf(4)}`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("name key version v1 twice (1 and v1 are one version)");
    expect(await stored(db.url)).toEqual(before);
  }, 60_000);

  it("OP-SEC-4: a value whose key is not given stays as it is and is named, without its value", async () => {
    const refused = await rotate(db.url, `v4:${keyOf(4)}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/secret FIRST_KEY \([0-9a-f-]+, organisation [0-9a-f-]+, key v3\): key version v3 is not configured/);
    expect(refused.stderr).toContain("3 value(s) stay under their old key");
    expect(`${refused.stdout}${refused.stderr}`).not.toContain("value-under");
    expect(await openAll(db.url, await parseKeySet(`v3:${keyOf(3)}`))).toMatchObject({ FIRST_KEY: "value-under-the-unversioned-key" });
  }, 60_000);
  it("OP-SEC-4: MCP credentials and OAuth verifiers are sealed again with the secrets, and still open", async () => {
    const v3 = await parseKeySet(`v3:${keyOf(3)}`);
    const ids = await withDatabase(db.url, async (pg) => {
      const { organisation_id: organisationId } = await createOrganisation(pg, "Rotation MCP");
      const id = crypto.randomUUID();
      const credential = { kind: "bearer" as const, token: "mcp-token-under-v3" };
      const sealed = await sealCredential(v3, organisationId, id, credential);
      await pg.insert(mcpConnections).values({
        id,
        organisationId,
        slug: "rotated",
        url: "https://mcp.example.com/mcp",
        authKind: "bearer",
        credentialCiphertext: sealed.ciphertext,
        credentialIv: sealed.iv,
        credentialKeyVersion: sealed.keyVersion,
      });
      const verifier = await sealSecret(v3, verifierBinding(organisationId, "nonce-1"), "pkce-verifier-under-v3");
      await pg.insert(mcpOauthStates).values({
        nonce: "nonce-1",
        connectionId: id,
        verifierCiphertext: verifier.ciphertext,
        verifierIv: verifier.iv,
        verifierKeyVersion: verifier.keyVersion,
        redirectUri: "http://127.0.0.1/cb",
        expiresAt: new Date(Date.now() + 600_000),
      });
      return { organisationId, id };
    });
    const out = await rotate(db.url, `v3:${keyOf(3)},v5:${keyOf(5)}`);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("MCP credentials: 1 sealed again under key v5, 0 already under it");
    expect(out.stdout).toContain("OAuth verifiers: 1 sealed again under key v5, 0 already under it");
    expect(`${out.stdout}${out.stderr}`).not.toMatch(/under-v3/);
    const v5 = await parseKeySet(`v5:${keyOf(5)}`);
    await withDatabase(db.url, async (pg) => {
      const [row] = await pg.select().from(mcpConnections);
      expect(row!.credentialKeyVersion).toBe("v5");
      const sealed = { ciphertext: row!.credentialCiphertext!, iv: row!.credentialIv!, keyVersion: row!.credentialKeyVersion! };
      expect(await openCredential(v5, ids.organisationId, ids.id, sealed)).toEqual({ kind: "bearer", token: "mcp-token-under-v3" });
      const [state] = await pg.select().from(mcpOauthStates);
      const opened = await openSecret(v5, verifierBinding(ids.organisationId, "nonce-1"), {
        ciphertext: state!.verifierCiphertext,
        iv: state!.verifierIv,
        keyVersion: state!.verifierKeyVersion,
      });
      expect(opened).toBe("pkce-verifier-under-v3");
    });
  }, 60_000);
});
