import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Forge, startForge } from "../../scripts/forge/server";
import { admin } from "../../scripts/forge/test-support";
import { GitHubApp, ISSUE_TOKEN_PERMISSIONS } from "./client";
import { collaboratorPermission, mayInstruct, PermissionUnknown, type RepositoryPermission, refusal } from "./collaborator-permission";

/** A sender's access as the forge answers it to an installation token for the repository. */

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;

let forge: Forge;
let token: string;
const permission = (user: string, fullName = "corp/app", apiUrl = forge.apiUrl) => collaboratorPermission({ apiUrl, token, fullName, user });

beforeAll(async () => {
  forge = await startForge({ appId: "4242", publicKeyPem: publicKey.export({ type: "spki", format: "pem" }) as string });
  await admin(forge.adminUrl, "POST", "/repos", { full_name: "corp/app", private: true });
  await admin(forge.adminUrl, "POST", "/repos", { full_name: "corp/other", private: true });
  for (const [user, role] of [
    ["owner", "admin"],
    ["keeper", "maintain"],
    ["staff", "write"],
    ["triager", "triage"],
    ["reader", "read"],
  ]) {
    await admin(forge.adminUrl, "PUT", `/repos/corp/app/collaborators/${user}`, { permission: role });
  }
  const installationId = (await admin(forge.adminUrl, "POST", "/installations", { account: "corp", repositories: ["app"] })).json.id;
  const app = new GitHubApp({ apiUrl: forge.apiUrl, appId: "4242", privateKeyPem });
  ({ token } = await app.mintRepositoryToken(installationId, "corp/app", ISSUE_TOKEN_PERMISSIONS));
});
afterAll(() => forge?.close());

describe("a sender's access to the repository", () => {
  it("ISSUE-33: admins, maintainers and writers may instruct a task; triagers, readers and strangers may not", async () => {
    const answers: Record<string, RepositoryPermission> = Object.fromEntries(
      await Promise.all(["owner", "keeper", "staff", "triager", "reader", "stranger"].map(async (u) => [u, await permission(u)] as const)),
    );
    expect(answers).toEqual({ owner: "admin", keeper: "write", staff: "write", triager: "read", reader: "read", stranger: "none" });
    expect(
      Object.entries(answers)
        .filter(([, p]) => mayInstruct(p))
        .map(([u]) => u),
    ).toEqual(["owner", "keeper", "staff"]);
    expect(refusal("reader", "read")).toBe("@reader has read access");
    expect(refusal("stranger", "none")).toBe("@stranger has no access to the repository");
  });

  it("ISSUE-33: a repository out of the token's reach or a forge that does not answer is no answer, and carries no token", async () => {
    // GitHub answers 404 for a private repository the token does not reach (as for an unknown
    // user): read as no access, never as a writer.
    expect(await permission("staff", "corp/other")).toBe("none");
    const down = await permission("staff", "corp/app", "http://127.0.0.1:9").catch((e: unknown) => e as Error);
    expect(down).toBeInstanceOf(PermissionUnknown);
    expect((down as Error).message).not.toContain(token);
  });
});
