/**
 * The stack's stand-in for GitHub: a forge and a GitHub App of its own (a fresh RSA key pair
 * per stack), and the Worker variables that point the platform at them exactly as it would
 * point at github.com.
 */
import { generateKeyPairSync, randomInt } from "node:crypto";
import { type Forge, startForge } from "./server";

export interface LocalGitHub {
  forge: Forge;
  /** GITHUB_API_URL, GITHUB_GIT_URL, GITHUB_APP_ID and the secret GITHUB_APP_PRIVATE_KEY (PKCS#8 PEM). */
  vars: Record<string, string>;
}

/**
 * @param gitHost where the boxes reach this machine (the docker bridge's gateway), or
 *   undefined without containers (git then on loopback only).
 * @param log told when gitHost cannot be bound (an engine in a VM): git stays on loopback.
 */
export async function startLocalGitHub(gitHost: string | undefined, log: (line: string) => void): Promise<LocalGitHub> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const appId = String(randomInt(100_000, 1_000_000));
  const forge = await startForge({ appId, publicKeyPem: publicKey, gitHost }).catch(async (error: unknown) => {
    if (!gitHost) throw error;
    log(`the forge cannot listen on ${gitHost} (${error instanceof Error ? error.message : String(error)}): boxes will not reach its git`);
    return startForge({ appId, publicKeyPem: publicKey });
  });
  return {
    forge,
    vars: { GITHUB_API_URL: forge.apiUrl, GITHUB_GIT_URL: forge.gitUrl, GITHUB_APP_ID: appId, GITHUB_APP_PRIVATE_KEY: privateKey },
  };
}
