/**
 * The stack's stand-in for GitHub: a forge and a GitHub App of its own, and the Worker
 * variables that point the platform at them exactly as it would point at github.com. With a
 * state folder the App (id, key pair, OAuth client, webhook secret) and the forge's
 * repositories, installations and tokens are kept there and found again by the next start,
 * as the database that names them is. The forge signs its webhooks with the App's secret
 * (GITHUB_WEBHOOK_SECRET) and sends them to `webhookUrl`.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, randomInt } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CiOptions } from "./ci";
import { type Forge, startForge } from "./server";

export interface LocalGitHub {
  forge: Forge;
  /**
   * GITHUB_API_URL, GITHUB_GIT_URL, GITHUB_WEB_URL, GITHUB_APP_ID, GITHUB_APP_SLUG,
   * GITHUB_APP_CLIENT_ID and the secrets GITHUB_APP_PRIVATE_KEY (PKCS#8 PEM),
   * GITHUB_APP_CLIENT_SECRET and GITHUB_WEBHOOK_SECRET.
   */
  vars: Record<string, string>;
}

export interface LocalGitHubOptions {
  /** Where the forge keeps its App and state (the stack's `<state>/forge`); none: a fresh forge each start. */
  dir?: string;
  /** The App's setup URL: the console page that completes an installation claim. */
  setupUrl?: string;
  /** Where the App's webhooks go (the platform's `/api/github/webhooks`); none: kept, not sent. */
  webhookUrl?: string;
  /** CI of pushes (on by default where the engine and the lite image answer). */
  ci?: CiOptions;
}

/** The App of a state folder, as `app.json` (the private key beside it in `app-key.pem`). */
interface SavedApp {
  app_id: string;
  slug: string;
  client_id: string;
  client_secret: string;
  /** Absent from folders made before the forge sent webhooks: added on their next start. */
  webhook_secret?: string;
}

/**
 * @param gitHost where the boxes reach this machine (the docker bridge's gateway), or
 *   undefined without containers (git then on loopback only).
 * @param log the forge's log (CI off, a webhook that failed), also told when gitHost cannot
 *   be bound (an engine in a VM): git stays on loopback.
 */
export async function startLocalGitHub(gitHost: string | undefined, log: (line: string) => void, options: LocalGitHubOptions = {}): Promise<LocalGitHub> {
  const { app, privateKey } = options.dir ? ensureApp(options.dir) : { app: newApp(), privateKey: newKey() };
  const root = options.dir ? join(options.dir, "repos") : undefined;
  if (root) mkdirSync(root, { recursive: true });
  const forgeOptions = {
    appId: app.app_id,
    publicKeyPem: createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString(),
    root,
    identity: { slug: app.slug, clientId: app.client_id, clientSecret: app.client_secret, setupUrl: options.setupUrl },
    webhook: { url: options.webhookUrl, secret: app.webhook_secret as string },
    ci: options.ci,
    log,
  };
  const forge = await startForge({ ...forgeOptions, gitHost }).catch(async (error: unknown) => {
    if (!gitHost) throw error;
    log(`the forge cannot listen on ${gitHost} (${error instanceof Error ? error.message : String(error)}): boxes will not reach its git`);
    return startForge(forgeOptions);
  });
  return {
    forge,
    vars: {
      GITHUB_API_URL: forge.apiUrl,
      GITHUB_GIT_URL: forge.gitUrl,
      GITHUB_WEB_URL: forge.webUrl,
      GITHUB_APP_ID: app.app_id,
      GITHUB_APP_PRIVATE_KEY: privateKey,
      GITHUB_APP_SLUG: app.slug,
      GITHUB_APP_CLIENT_ID: app.client_id,
      GITHUB_APP_CLIENT_SECRET: app.client_secret,
      GITHUB_WEBHOOK_SECRET: app.webhook_secret as string,
    },
  };
}

/** The folder's App, made on its first start. */
function ensureApp(dir: string): { app: SavedApp; privateKey: string } {
  mkdirSync(dir, { recursive: true });
  const appFile = join(dir, "app.json");
  const keyFile = join(dir, "app-key.pem");
  if (existsSync(appFile) && existsSync(keyFile)) {
    const app = JSON.parse(readFileSync(appFile, "utf8")) as SavedApp;
    if (!app.webhook_secret) {
      app.webhook_secret = newSecret();
      writeFileSync(appFile, `${JSON.stringify(app, null, 2)}\n`, { mode: 0o600 });
      chmodSync(appFile, 0o600);
    }
    return { app, privateKey: readFileSync(keyFile, "utf8") };
  }
  const app = newApp();
  const privateKey = newKey();
  writeFileSync(keyFile, privateKey, { mode: 0o600 });
  writeFileSync(appFile, `${JSON.stringify(app, null, 2)}\n`, { mode: 0o600 });
  return { app, privateKey };
}

function newApp(): SavedApp {
  const appId = String(randomInt(100_000, 1_000_000));
  return { app_id: appId, slug: "guilds-forge", client_id: `Iv1.forge${appId}`, client_secret: randomBytes(20).toString("hex"), webhook_secret: newSecret() };
}

/** A webhook secret as GitHub's settings suggest one: long and random. */
function newSecret(): string {
  return randomBytes(32).toString("hex");
}

function newKey(): string {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
}
