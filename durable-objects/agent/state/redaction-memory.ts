/**
 * The values the agent's redaction sets held, kept past the generation that held them
 * (ERR-011, REPO-025, SEC-018), in the object's SQLite storage, sealed like the secrets
 * table (OP-SEC-4) so a copy of the storage shows no value:
 *
 * - every secret value a run's generations used, for that run's diff: a file written with a
 *   secret stays in the box's history after the secret is rotated or deleted, so the diff is
 *   redacted with the values of the run's time as well as the current ones;
 * - every installation token minted, until it expires: one an earlier generation (of any run
 *   of the agent: the box is the agent's) left in a file is still hidden in a later one's output.
 *
 * Without a key-encryption key nothing is kept and only the current values apply.
 */
import { describeError, logEvent } from "../../../core/output/log";
import type { SecretValue } from "../../../core/output/redaction";
import { type KeySet, openSecret, sealSecret } from "../../../core/secrets/crypto";

/** Runs whose kept secret values this object remembers in memory, so a generation start reads none. */
const KNOWN_RUNS = 16;

interface Row extends Record<string, SqlStorageValue> {
  run_id: string;
  name: string;
  ciphertext: string;
  iv: string;
  key_version: string;
}

export class RedactionMemory {
  /** Values already kept, per run, as this instance knows them. */
  readonly #known = new Map<string, Set<string>>();

  constructor(
    private readonly sql: SqlStorage,
    private readonly agentId: () => string | undefined,
    private readonly keys: () => Promise<KeySet>,
  ) {}

  /** The agent was deleted and its storage with it: nothing is known any more. */
  forgetAll(): void {
    this.#known.clear();
  }

  static migrate(sql: SqlStorage): void {
    sql.exec(`CREATE TABLE IF NOT EXISTS redaction_values (
      id INTEGER PRIMARY KEY,
      run_id TEXT NOT NULL,
      name TEXT NOT NULL,
      ciphertext TEXT NOT NULL,
      iv TEXT NOT NULL,
      key_version TEXT NOT NULL,
      expires_at INTEGER
    )`);
    sql.exec(`CREATE INDEX IF NOT EXISTS redaction_values_run ON redaction_values (run_id)`);
  }

  /**
   * A generation's start: keeps the run's secret values (those not kept yet) and answers the
   * installation tokens minted earlier that are still valid, for the generation's set.
   *
   * @example const earlier = await memory.generationStarting(runId, secrets.values, Date.now());
   */
  async generationStarting(runId: string, secrets: readonly SecretValue[], now: number): Promise<SecretValue[]> {
    const tokens = this.#rows(`expires_at > ?`, now);
    // Most agents hold neither: no key work at all then.
    if (secrets.length === 0 && tokens.length === 0) return [];
    try {
      const keys = await this.keys();
      await this.#keep(keys, runId, secrets, null, now);
      return await this.#open(keys, tokens);
    } catch (error) {
      this.#failed("redaction.keep", error);
      return [];
    }
  }

  /** Keeps tokens minted for a generation until `expiresAt` (epoch ms). */
  async tokensMinted(runId: string, tokens: readonly SecretValue[], expiresAt: number, now: number): Promise<void> {
    try {
      await this.#keep(await this.keys(), runId, tokens, expiresAt, now);
    } catch (error) {
      this.#failed("redaction.keep_tokens", error);
    }
  }

  /** The values a run's diff is redacted with beside the current ones: the run's own and the valid tokens. */
  async forRun(runId: string, now: number): Promise<SecretValue[]> {
    try {
      return await this.#open(await this.keys(), this.#rows(`run_id = ? OR expires_at > ?`, runId, now));
    } catch (error) {
      this.#failed("redaction.read", error);
      return [];
    }
  }

  async #keep(keys: KeySet, runId: string, values: readonly SecretValue[], expiresAt: number | null, now: number): Promise<void> {
    if (values.length === 0) return;
    const known = await this.#knownFor(keys, runId);
    // Expired tokens are of no use to anyone any more; they leave as new ones come.
    if (expiresAt !== null) this.sql.exec(`DELETE FROM redaction_values WHERE expires_at IS NOT NULL AND expires_at <= ?`, now);
    for (const { name, value } of values) {
      if (known.has(value) && expiresAt === null) continue;
      const sealed = await sealSecret(keys, this.#binding(runId), value);
      this.sql.exec(
        `INSERT INTO redaction_values (run_id, name, ciphertext, iv, key_version, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
        runId,
        name,
        sealed.ciphertext,
        sealed.iv,
        sealed.keyVersion,
        expiresAt,
      );
      known.add(value);
    }
  }

  async #knownFor(keys: KeySet, runId: string): Promise<Set<string>> {
    let known = this.#known.get(runId);
    if (!known) {
      known = new Set((await this.#open(keys, this.#rows(`run_id = ?`, runId))).map((v) => v.value));
      if (this.#known.size >= KNOWN_RUNS) this.#known.delete(this.#known.keys().next().value!);
      this.#known.set(runId, known);
    }
    return known;
  }

  #rows(where: string, ...params: SqlStorageValue[]): Row[] {
    return this.sql.exec<Row>(`SELECT run_id, name, ciphertext, iv, key_version FROM redaction_values WHERE ${where}`, ...params).toArray();
  }

  /** Opens rows; one that no key opens any more (a retired key version) is left out. */
  async #open(keys: KeySet, rows: Row[]): Promise<SecretValue[]> {
    const out: SecretValue[] = [];
    for (const row of rows) {
      const sealed = { ciphertext: row.ciphertext, iv: row.iv, keyVersion: row.key_version };
      const value = await openSecret(keys, this.#binding(row.run_id), sealed).catch(() => null);
      if (value !== null) out.push({ name: row.name, value });
    }
    return out;
  }

  #binding(runId: string) {
    return { organisationId: `agent:${this.agentId() ?? ""}`, secretId: `redaction:${runId}` };
  }

  #failed(operation: string, error: unknown): void {
    logEvent("warn", { operation, agent_id: this.agentId() ?? null, ...describeError(error) });
  }
}
