/**
 * An in-memory NotesRecordsStore for unit tests of tools and the loop. It follows the
 * store contract (newest first, `since` exclusive); the Postgres store is tested elsewhere.
 */
import type { AgentRecord, Note, NotesRecordsStore } from "./types";

/**
 * @example const store = new MemoryNotesRecordsStore(() => new Date("2026-01-01T00:00:00Z"));
 */
export class MemoryNotesRecordsStore implements NotesRecordsStore {
  readonly notes = new Map<string, Map<string, Note>>();
  readonly records: (AgentRecord & { agentId: string })[] = [];
  #nextId = 1;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async noteWrite(agentId: string, title: string, body: string): Promise<{ created: boolean }> {
    const notes = this.#notesOf(agentId);
    const created = !notes.has(title);
    notes.set(title, { title, body, updatedAt: this.clock() });
    return { created };
  }

  async noteRead(agentId: string, title: string): Promise<Note | null> {
    return this.#notesOf(agentId).get(title) ?? null;
  }

  async noteList(agentId: string): Promise<{ title: string; updatedAt: Date }[]> {
    return [...this.#notesOf(agentId).values()]
      .map((n) => ({ title: n.title, updatedAt: n.updatedAt }))
      .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  }

  async noteDelete(agentId: string, title: string): Promise<boolean> {
    return this.#notesOf(agentId).delete(title);
  }

  async recordCreate(agentId: string, runId: string, input: { kind: string; content: string; data?: unknown }): Promise<AgentRecord> {
    const record = { id: this.#nextId++, kind: input.kind, content: input.content, data: input.data ?? null, runId, createdAt: this.clock() };
    this.records.push({ ...record, agentId });
    return record;
  }

  async recordList(agentId: string, options: { since?: Date; limit: number }): Promise<AgentRecord[]> {
    const since = options.since?.getTime();
    return this.records
      .filter((r) => r.agentId === agentId && (since === undefined || r.createdAt.getTime() > since))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)
      .slice(0, options.limit)
      .map(({ agentId: _agent, ...record }) => record);
  }

  #notesOf(agentId: string): Map<string, Note> {
    let notes = this.notes.get(agentId);
    if (!notes) this.notes.set(agentId, (notes = new Map()));
    return notes;
  }
}
