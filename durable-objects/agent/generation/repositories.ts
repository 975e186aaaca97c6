/**
 * A coding agent's repositories for one generation (REPO-001..020): installation tokens
 * into the box's tokens file, the git identity and clones through guilds-code, the start
 * checkpoint, the tokens minted again before commands near their expiry, and the end
 * checkpoint that records metadata.repos. Every git command runs in the box (REPO-010).
 */
import { eq, sql } from "drizzle-orm";
import type { Env } from "../../../bindings/env";
import { githubApp } from "../../../bindings/github";
import type { Database } from "../../../core/db/client";
import { replaceFileChanges } from "../../../core/db/file-changes";
import { repositoriesForGeneration } from "../../../core/db/repositories";
import { agents, guilds, runs } from "../../../core/db/schema";
import { type GitHubApp, GitHubError, type InstallationToken } from "../../../core/github/client";
import { describeError, logEvent } from "../../../core/output/log";
import type { SecretValue } from "../../../core/output/redaction";
import { fileChangeRows, lastToolCallOf } from "../../../core/repos/file-changes";
import { checkpointCommand, guildsCodeCommand, identityCommand, lastJson } from "../../../core/repos/guilds-code";
import {
  type CloneRefusal,
  cloneFailureMessage,
  dueForRefresh,
  readCheckpoint,
  type TokenRefusal,
  tokenFailureMessage,
  tokensFileText,
  workingDirectory,
} from "../../../core/repos/preparation";
import { CLONE_TIMEOUT_S, GIT_TOKENS_PATH, type RepositoryForGeneration } from "../../../core/repos/types";
import type { SandboxAccess } from "../../../core/tools/types";
import type { RunSession } from "../state/run-session";

/** A refusal that ends the generation before its model call (ERR-012, ERR-013). */
export type PreparationFailure = { ok: false; code: "repository.token" | "repository.clone"; message: string };

/** How long guilds-code's identity and checkpoints may take. */
const GIT_STEP_TIMEOUT_MS = 120_000;

/** One connection's token and the repositories it reaches. */
interface ConnectionToken {
  installationId: number;
  repositories: RepositoryForGeneration[];
  token: InstallationToken;
}

export class GenerationRepositories {
  private tokens: ConnectionToken[] = [];

  private constructor(
    private readonly db: Database,
    private readonly session: RunSession,
    private readonly access: SandboxAccess,
    private readonly app: GitHubApp | null,
    readonly repositories: RepositoryForGeneration[],
    private readonly identity: { name: string; email: string },
    /** New token values join the generation's redaction set (REPO-003, SEC-018), kept until they expire (epoch ms). */
    private readonly redact: (values: SecretValue[], expiresAt: number) => Promise<void>,
    private readonly now: () => number,
  ) {}

  /** Reads the guild's repositories and the agent's identity (REPO-005). */
  static async load(input: {
    db: Database;
    env: Env;
    session: RunSession;
    access: SandboxAccess;
    redact: (values: SecretValue[], expiresAt: number) => Promise<void>;
    now: () => number;
  }): Promise<GenerationRepositories> {
    const { db, env, session } = input;
    const [repositories, [who]] = await Promise.all([
      repositoriesForGeneration(db, session.scope.guildId, env.GITHUB_GIT_URL),
      db
        .select({ name: agents.name, email: guilds.gitAuthorEmail })
        .from(agents)
        .innerJoin(guilds, eq(guilds.id, agents.guildId))
        .where(eq(agents.id, session.scope.agentId))
        .limit(1),
    ]);
    const identity = { name: who?.name ?? "agent", email: who?.email || `${session.scope.agentId}@agents.guilds.run` };
    return new GenerationRepositories(db, session, input.access, githubApp(env), repositories, identity, input.redact, input.now);
  }

  /** REPO-011: where commands start, when the guild has exactly one repository. */
  get workingDirectory(): string | null {
    return workingDirectory(this.repositories);
  }

  /** REPO-001: tokens, then identity and clones, then the start checkpoint at the run's first generation. */
  async prepare(firstGeneration: boolean): Promise<{ ok: true } | PreparationFailure> {
    const began = this.now();
    const minted = await this.mintAll();
    if (!minted.ok) return minted;
    await this.writeTokens();
    const tokensMs = this.now() - began;
    await this.run(identityCommand(this.identity.name, this.identity.email), GIT_STEP_TIMEOUT_MS);
    for (const repository of this.repositories) {
      const cloned = await this.guildsCode(
        "clone",
        { url: repository.clone_url, dir: repository.name, "timeout-s": CLONE_TIMEOUT_S },
        (CLONE_TIMEOUT_S + 30) * 1000,
      );
      if (cloned.exitCode !== 0) {
        const answer = lastJson(cloned.output) as CloneRefusal | null;
        return { ok: false, code: "repository.clone", message: cloneFailureMessage(repository, answer, cloned.output) };
      }
    }
    // Every work tree under the repos folder is checkpointed, cloned by the platform or not.
    if (firstGeneration) await this.checkpoint("start");
    logEvent("info", {
      operation: "repository.prepare",
      run_id: this.session.runId,
      agent_id: this.session.scope.agentId,
      repositories: this.repositories.length,
      tokens_ms: tokensMs,
      duration_ms: this.now() - began,
    });
    return { ok: true };
  }

  /** REPO-012: before a command, tokens within 10 minutes of expiry are minted again and rewritten. */
  async refresh(): Promise<void> {
    const due = this.tokens.filter((t) => dueForRefresh(t.token.expires_at, this.now()));
    if (due.length === 0 || !this.app) return;
    for (const entry of due) {
      try {
        entry.token = await this.mint(this.app, entry.installationId, entry.repositories);
      } catch (error) {
        // The command still runs; git then says what it could not do.
        logEvent("warn", { operation: "repository.token_refresh", agent_id: this.session.scope.agentId, ...describeError(error) });
      }
    }
    await this.writeTokens();
  }

  /**
   * REPO-015, REPO-018, RUN-019: the end checkpoint, the run's metadata.repos from its
   * diffstat, and its file_changes from the checkpoint's files (core/repos/file-changes.ts).
   */
  async checkpointEnd(): Promise<void> {
    const began = this.now();
    const repos = await this.checkpoint("end");
    logEvent("info", {
      operation: "repository.checkpoint_end",
      run_id: this.session.runId,
      agent_id: this.session.scope.agentId,
      duration_ms: this.now() - began,
    });
    if (!repos || (repos.length === 0 && !this.session.facts.metadata.repos)) return;
    // metadata.repos keeps the diffstat; the files go to file_changes (RUN-019).
    const recorded = repos.map(({ files: _files, files_truncated: _cut, ...repo }) => repo);
    await this.db
      .update(runs)
      .set({ metadata: sql`${runs.metadata} || jsonb_build_object('repos', ${JSON.stringify(recorded)}::jsonb)` })
      .where(eq(runs.id, this.session.runId));
    this.session.facts = { ...this.session.facts, metadata: { ...this.session.facts.metadata, repos: recorded } };
    const files = fileChangeRows(repos);
    if (files) await replaceFileChanges(this.db, this.session.runId, files, lastToolCallOf(this.session.rows, this.session.facts.generation));
  }

  private async checkpoint(kind: "start" | "end") {
    const ran = await this.run(checkpointCommand(this.session.runId, kind), GIT_STEP_TIMEOUT_MS);
    const repos = ran.exitCode === 0 ? readCheckpoint(ran.output) : null;
    if (!repos) logEvent("warn", { operation: `repository.checkpoint_${kind}`, run_id: this.session.runId, exit_code: ran.exitCode });
    return repos;
  }

  /** One token per connection the repositories use (REPO-002); the first refusal is the generation's error. */
  private async mintAll(): Promise<{ ok: true } | PreparationFailure> {
    const byConnection = new Map<string, RepositoryForGeneration[]>();
    for (const repository of this.repositories) {
      if (!repository.connection) continue;
      byConnection.set(repository.connection.id, [...(byConnection.get(repository.connection.id) ?? []), repository]);
    }
    for (const repositories of byConnection.values()) {
      const connection = repositories[0]!.connection!;
      const refuse = (refusal: TokenRefusal): PreparationFailure => ({
        ok: false,
        code: "repository.token",
        message: tokenFailureMessage(repositories, refusal),
      });
      if (connection.disconnected) return refuse({ kind: "disconnected" });
      if (!this.app) return refuse({ kind: "not_configured" });
      try {
        const token = await this.mint(this.app, connection.installation_id, repositories);
        this.tokens.push({ installationId: connection.installation_id, repositories, token });
      } catch (error) {
        if (!(error instanceof GitHubError)) throw error;
        return refuse({ kind: error.kind, ...(error.repository ? { repository: error.repository } : {}), detail: error.message });
      }
    }
    return { ok: true };
  }

  /** A token limited to these repositories, joining the redaction set before anything can print it (SEC-018). */
  private async mint(app: GitHubApp, installationId: number, repositories: RepositoryForGeneration[]): Promise<InstallationToken> {
    const token = await app.mintToken(
      installationId,
      repositories.map((r) => r.name),
    );
    // An unreadable expiry is kept for the hour GitHub gives a token.
    const expires = Date.parse(token.expires_at);
    await this.redact([{ name: "GITHUB_INSTALLATION_TOKEN", value: token.token }], Number.isFinite(expires) ? expires : this.now() + 3_600_000);
    return token;
  }

  /** REPO-003: every token through the box's file API, outside the workspace. */
  private async writeTokens(): Promise<void> {
    const entries = this.tokens.flatMap((t) => t.repositories.map((repository) => ({ repository, token: t.token })));
    await this.access.files.put(GIT_TOKENS_PATH, tokensFileText(entries));
  }

  private guildsCode(subcommand: string, flags: Record<string, string | number>, timeoutMs: number) {
    return this.run(guildsCodeCommand(subcommand, flags), timeoutMs);
  }

  private run(command: string, timeoutMs: number) {
    return this.access.exec({ command, cwd: "/home/agent", timeoutMs });
  }
}
