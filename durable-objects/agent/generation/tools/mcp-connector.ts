/**
 * How a generation reaches an MCP connection's server: its credential opened with the
 * secrets' key (SECRETS_KEK), and a client from core/mcp/client.ts, loaded on the first
 * call so no isolate pays for the client at startup. Every request is egress-checked
 * as model base URLs are (ALLOW_PRIVATE_MODEL_URLS).
 */
import type { Env } from "../../../../bindings/env";
import type { AnyDatabase } from "../../../../core/db/client";
import type { CallOptions } from "../../../../core/mcp/client";
import type { McpCredential } from "../../../../core/mcp/credentials";
import { describeError, logEvent } from "../../../../core/output/log";
import { allowanceFrom } from "../../../../core/providers/egress";
import { keySetFrom } from "../../../../core/secrets/crypto";
import type { McpCallResult } from "../../../../core/tools/types";

export type { McpCredential };

/** A connection's row as a generation reads it. */
export interface McpConnectionRow {
  id: string;
  slug: string;
  url: string;
  transport: string | null;
  auth_kind: string;
  status: string;
  organisation_id: string;
  credential_ciphertext: string | null;
  credential_iv: string | null;
  credential_key_version: string | null;
}

/** One open client of a connection, for this generation. */
export interface McpClientHandle {
  call(
    remoteName: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal?: AbortSignal; tool?: CallOptions["tool"] },
  ): Promise<McpCallResult>;
  close(): Promise<void>;
}

export interface McpConnector {
  /** The credential of a connection with one; undefined without; throws when no key opens it. */
  openCredential(row: McpConnectionRow): Promise<McpCredential | undefined>;
  connect(row: McpConnectionRow, credential: McpCredential | null, signal?: AbortSignal): Promise<McpClientHandle>;
}

/** How long a close waits for cancellation notices still on their way. */
const NOTICE_GRACE_MS = 2_000;

const client = () => import("../../../../core/mcp/client");
const credentials = () => import("../../../../core/mcp/credentials");

/** The connector of this environment's key and egress rules. */
export function mcpConnector(env: Env): McpConnector {
  const allow = allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS);
  return {
    async openCredential(row) {
      if (row.auth_kind === "none" || !row.credential_ciphertext || !row.credential_iv || !row.credential_key_version) return undefined;
      const { openCredential } = await credentials();
      const keys = await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
      return openCredential(keys, row.organisation_id, row.id, {
        ciphertext: row.credential_ciphertext,
        iv: row.credential_iv,
        keyVersion: row.credential_key_version,
      });
    },
    async connect(row, credential, signal) {
      const mcp = await client();
      const auth =
        credential?.kind === "bearer"
          ? { kind: "bearer" as const, token: credential.token }
          : credential?.kind === "oauth"
            ? { kind: "oauth" as const, accessToken: async () => credential.access_token }
            : { kind: "none" as const };
      const transport = row.transport === "sse" || row.transport === "streamable_http" ? row.transport : null;
      // The SDK sends a cancelled call's notice without waiting for it: closing at once could
      // abort it on the wire, so the close waits for those sends (a short while at most).
      const notices = new Set<Promise<unknown>>();
      const fetch = (input: string | URL, init?: RequestInit) => {
        const sent = globalThis.fetch(input, init);
        if (typeof init?.body === "string" && init.body.includes('"notifications/cancelled"')) {
          const settled = sent.catch(() => {});
          notices.add(settled);
          void settled.finally(() => notices.delete(settled));
        }
        return sent;
      };
      const session = await mcp.connect({ url: row.url, auth, transport }, { allow, fetch, ...(signal ? { signal } : {}) });
      return {
        call: (remoteName, args, options) => mcp.call(session, remoteName, args, options),
        async close() {
          if (notices.size) await Promise.race([Promise.allSettled([...notices]), new Promise((r) => setTimeout(r, NOTICE_GRACE_MS))]);
          await session.close();
        },
      };
    },
  };
}

/**
 * OAuth connections whose access token expires within the minute get fresh tokens now
 * (core/mcp/oauth-access.ts, under the row's lock), so a generation sends, and its redaction
 * set holds, the tokens it will carry throughout. A refused refresh leaves the connection
 * needs_auth, which its tools then say; a server out of reach leaves the token as it was.
 */
export async function refreshOauthTokens(env: Env, db: AnyDatabase, rows: McpConnectionRow[], runId: string): Promise<void> {
  const [{ oauthAuth }, { egressFetch }] = await Promise.all([import("../../../../core/mcp/oauth-access"), import("../../../../core/mcp/oauth-flow")]);
  const keys = await keySetFrom(env.SECRETS_KEK, env.SECRETS_KEK_PREVIOUS);
  const auth = oauthAuth({ db, keys, fetch: egressFetch(allowanceFrom(env.ALLOW_PRIVATE_MODEL_URLS)) });
  await Promise.all(
    rows.map((row) =>
      auth({ id: row.id, organisationId: row.organisation_id }).catch((error: unknown) =>
        logEvent("warn", { operation: "mcp.oauth_refresh", run_id: runId, connection_id: row.id, ...describeError(error) }),
      ),
    ),
  );
}
