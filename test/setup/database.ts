import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { migrateDatabase } from "../../scripts/db/migrate";
import { startForge } from "../../scripts/forge/server";
import { startMcpServer } from "../../scripts/mcp-server/server";
import { startMockModel } from "../../scripts/mock-model/server";
import { startDatabase } from "../../scripts/stack/postgres";
import { removeStateDir } from "../../scripts/stack/postgres-home";
import { startWsProxy } from "../../scripts/stack/ws-proxy";
import { platformKeyLeaks } from "./canary";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    neonWsProxy: string;
    mockModelUrl: string;
    /** The local MCP server (scripts/mcp-server): base URL, Streamable HTTP at `/mcp`. */
    mcpServerUrl: string;
    /** The local forge standing in for GitHub, its App and the App's private key (PKCS#1, as GitHub issues it). */
    forgeApiUrl: string;
    forgeGitUrl: string;
    forgeAdminUrl: string;
    githubAppId: string;
    githubAppPrivateKey: string;
    /** The forge's web base (install page, OAuth code exchange) and the App's slug and OAuth client. */
    forgeWebUrl: string;
    githubAppSlug: string;
    githubAppClientId: string;
    githubAppClientSecret: string;
    /** The secret the forge signs the App's webhooks with (GITHUB_WEBHOOK_SECRET); it sends none: the tests deliver their own. */
    githubWebhookSecret: string;
  }
}

/**
 * Global setup of the workerd tests: a real Postgres on a free port (the server at
 * TEST_DATABASE_URL when set, otherwise an embedded one in a temporary folder),
 * migrated, behind the WebSocket proxy the Neon driver uses locally; and the scripted
 * mock model, the default provider of the Worker under test; and the local forge as the
 * platform's GitHub (scripts/forge/server.ts) with an App key pair made for the run. Its teardown fails the run
 * when the platform key's canary turns up anywhere it must not.
 */
export default async function setup(project: TestProject) {
  const stateDir = mkdtempSync(join(tmpdir(), "guilds-test-pg-"));
  const db = await startDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, stateDir });
  await migrateDatabase(db.url);
  const proxy = await startWsProxy({ allow: [`${db.host}:${db.port}`] });
  project.provide("databaseUrl", db.url);
  project.provide("neonWsProxy", proxy.address);
  const mock = await startMockModel();
  project.provide("mockModelUrl", mock.url);
  const mcp = await startMcpServer();
  project.provide("mcpServerUrl", mcp.url);
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const webhookSecret = randomBytes(32).toString("hex");
  const forge = await startForge({
    appId: "4242",
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }) as string,
    webhook: { secret: webhookSecret },
  });
  project.provide("forgeApiUrl", forge.apiUrl);
  project.provide("forgeGitUrl", forge.gitUrl);
  project.provide("forgeAdminUrl", forge.adminUrl);
  project.provide("githubAppId", forge.appId);
  project.provide("githubAppPrivateKey", privateKey.export({ type: "pkcs1", format: "pem" }) as string);
  project.provide("forgeWebUrl", forge.webUrl);
  project.provide("githubAppSlug", forge.identity.slug);
  project.provide("githubAppClientId", forge.identity.clientId);
  project.provide("githubAppClientSecret", forge.identity.clientSecret);
  project.provide("githubWebhookSecret", webhookSecret);
  return async () => {
    // Acceptance of the provider-key rules: the platform key in no row, no request to
    // another provider and no console line of the whole run (./canary.ts).
    const leaks = await platformKeyLeaks(db.url, mock.url).catch((error: unknown) => [`the check failed: ${String(error)}`]);
    await mock.close();
    await mcp.close();
    await forge.close();
    await proxy.close();
    await db.stop();
    removeStateDir(stateDir);
    if (leaks.length > 0) {
      // vitest only logs a teardown error; the exit code makes it fail the run.
      process.exitCode = 1;
      throw new Error(`The platform key or the canary secret value leaked:\n- ${leaks.join("\n- ")}`);
    }
  };
}
