import { useState } from "preact/hooks";
import { api, type PromptReplay as Replay, unwrap } from "../lib/api";
import { contentText } from "../lib/format";
import { useRead } from "../lib/use-read";
import { type RecordedAnswer, WhatIf } from "./what-if";

/**
 * "Exact prompt" of an assistant row, loaded on demand from
 * GET /api/runs/:id/messages/:seq/prompt: what the model was sent for it (UI-005), and
 * "What if…": the same prompt sent again with other settings.
 */
export function PromptReplay(props: { runId: string; seq: number; recorded: RecordedAnswer }) {
  const [replay, setReplay] = useState<Replay | null>(null);
  const { error, read } = useRead();
  const load = async (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || replay) return;
    const answer = await read(() => unwrap(api.GET("/api/runs/{id}/messages/{seq}/prompt", { params: { path: { id: props.runId, seq: props.seq } } })));
    if (answer) setReplay(answer);
  };
  return (
    <details class="prompt-replay" onToggle={load}>
      <summary>Exact prompt</summary>
      {error && <p class="field-error">{error}</p>}
      {!replay && !error && <p aria-busy="true">Loading…</p>}
      {replay && (
        <>
          <p class="muted">
            {replay.messages.length} messages to <code>{replay.model}</code> · hash <code>{replay.hash.slice(0, 16)}</code>{" "}
            {replay.matches ? "matches the recorded hash" : "differs from the recorded hash"}
          </p>
          <ol class="prompt-messages">
            {replay.messages.map((m, i) => (
              <li key={i}>
                <strong>{String(m.role)}</strong>
                <pre>{contentText(m.content) || (m.role === "assistant" && m.tool_calls ? JSON.stringify(m.tool_calls, null, 2) : "")}</pre>
              </li>
            ))}
          </ol>
          <WhatIf
            runId={props.runId}
            seq={props.seq}
            systemPrompt={contentText(replay.messages.find((m) => m.role === "system")?.content)}
            recorded={props.recorded}
          />
        </>
      )}
    </details>
  );
}
