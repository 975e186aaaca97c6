import { countRowTokens } from "./token-count";
import type { ChatPayload, RowMetadata, StoredRow, TextCounter } from "./types";

/**
 * Test helper: builds a run's stored rows the way the loop appends them, with
 * tokenCount counted once at insert. Not a test file (no `.test.ts`), imported by tests only.
 * @example const run = new RunBuilder(); run.user(1, "hi"); run.toolStep(1, "file_read", big);
 */
export class RunBuilder {
  readonly rows: StoredRow[] = [];
  #calls = 0;

  constructor(
    private readonly count?: TextCounter,
    system = "<guidelines>be brief</guidelines>",
  ) {
    this.push(null, { role: "system", content: system });
  }

  push(generation: number | null, payload: ChatPayload, metadata: RowMetadata = {}): StoredRow {
    const row: StoredRow = {
      seq: this.rows.length,
      generation,
      role: payload.role,
      payload,
      metadata,
      tokenCount: countRowTokens(payload, metadata, this.count),
    };
    this.rows.push(row);
    return row;
  }

  user(generation: number, content: string, metadata: RowMetadata = {}): StoredRow {
    return this.push(generation, { role: "user", content }, metadata);
  }

  assistant(generation: number, content: string): StoredRow {
    return this.push(generation, { role: "assistant", content });
  }

  /** One assistant row calling `tool`, then its tool result row; returns the tool row. */
  toolStep(generation: number, tool: string, result: string, meta: Omit<RowMetadata, "tool_name"> = {}): StoredRow {
    const id = `call_${++this.#calls}`;
    this.push(generation, {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: tool, arguments: JSON.stringify({ n: this.#calls }) } }],
    });
    return this.push(generation, { role: "tool", tool_call_id: id, content: result }, { tool_name: tool, ...meta });
  }
}

/** A tool result of exactly `bytes` UTF-8 bytes (ASCII), varied so it tokenises realistically. */
export function result(bytes: number, seed = 0): string {
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
  let s = "";
  for (let i = seed; s.length < bytes; i++) s += `${words[i % words.length]}${i} `;
  return s.slice(0, bytes);
}

export const ids = (rows: readonly StoredRow[]): number[] => rows.map((r) => r.seq);
