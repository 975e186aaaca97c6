import type { ComponentChildren } from "preact";
import type { AssistantUsage, Row, ToolCall } from "../lib/api-types";
import { contentText, prettyArguments, tokens, usd, when } from "../lib/format";
import { GROUP_WAKE_HEADING } from "../lib/group-wake";
import type { Draft } from "../lib/live-run";
import { createdScriptName, scriptsHref } from "../lib/scripts";
import { AttachmentThumbs, imageRefs } from "./attachment-thumbs";
import { GroupWake } from "./group-wake";
import { Link } from "./link";
import { Markdown } from "./markdown";
import { PromptReplay } from "./prompt-replay";
import { SecretRequestCard } from "./secret-request";

/**
 * A run's rows in seq order: the system row collapsed, user and assistant messages
 * (a group run's wake read as "Group Chat info"), tool calls with their arguments,
 * tool results (interruption results and results stubbed in a later prompt marked; a
 * browser tool's screenshot as a thumbnail), images of user rows as thumbnails,
 * reasoning collapsible, cost and usage per row; then the streamed draft of the
 * generation in progress. Each row is addressable as `#seq-<n>`; `target` marks the one
 * the address named (a script's author link, UI-018).
 */
export function Transcript(props: { runId: string; agentId: string; rows: Row[]; draft: Draft | null; generating: boolean; target?: number | null }) {
  const stubbed = new Set<number>();
  for (const row of props.rows) {
    for (const seq of row.metadata.projection?.pressure_stubbed ?? []) stubbed.add(seq);
  }
  return (
    <ol class="transcript" aria-label="Transcript">
      {props.rows.map((row) => (
        <li
          key={row.seq}
          id={`seq-${row.seq}`}
          class={`row row-${row.role}${props.target === row.seq ? " row-target" : ""}`}
          data-seq={row.seq}
          data-role={row.role}
          aria-current={props.target === row.seq ? "location" : undefined}
        >
          <RowView runId={props.runId} agentId={props.agentId} row={row} stubbed={stubbed.has(row.seq)} />
        </li>
      ))}
      {props.draft && (props.draft.content || props.draft.reasoning) && (
        <li class="row row-assistant row-draft" data-draft="true" aria-live="polite" aria-busy="true">
          <header class="row-head">
            <span class="role">Assistant</span> <span class="muted">writing…</span>
          </header>
          {props.draft.reasoning && (
            <details class="reasoning" open>
              <summary>Reasoning (streaming)</summary>
              <div class="text">{props.draft.reasoning}</div>
            </details>
          )}
          {props.draft.content && <Markdown text={props.draft.content} />}
        </li>
      )}
      {props.generating && !props.draft && (
        <li class="row row-waiting" aria-live="polite">
          <span class="spinner" aria-hidden="true" /> The agent is working…
        </li>
      )}
    </ol>
  );
}

function RowView(props: { runId: string; agentId: string; row: Row; stubbed: boolean }) {
  const { row } = props;
  const payload = row.payload;
  const meta = row.metadata;
  if (row.role === "system") {
    const text = contentText(payload.content);
    return (
      <details class="system">
        <summary>
          System prompt{" "}
          <span class="muted">
            · row {row.seq} · {text.length.toLocaleString("en-US")} characters
          </span>
        </summary>
        <pre class="text">{text}</pre>
      </details>
    );
  }
  const head = (label: string, extra?: ComponentChildren) => (
    <header class="row-head">
      <span class="role">{label}</span>
      <span class="muted">
        {" "}
        #{row.seq}
        {row.generation !== null ? ` · generation ${row.generation}` : ""} · {when(row.created_at)}
      </span>
      {extra}
    </header>
  );
  if (row.role === "user" && meta.source === "group") {
    return <GroupWake head={head(GROUP_WAKE_HEADING)} text={contentText(payload.content)} throughSeq={meta.group_chat_through_seq} />;
  }
  if (row.role === "user") {
    const attachments = meta.attachments ?? [];
    return (
      <>
        {head(meta.source === "operator" || !meta.source ? "You" : `User (${String(meta.source)})`)}
        {contentText(payload.content) ? (
          <Markdown text={contentText(payload.content)} />
        ) : (
          <div class="text">
            <span class="muted">(no text)</span>
          </div>
        )}
        {attachments.length > 0 && (
          <p class="muted" data-testid="row-attachments">
            Attachments: {attachments.map((a) => a.filename).join(", ")}
          </p>
        )}
        <AttachmentThumbs images={imageRefs(meta.attachments)} label={`Images of message ${row.seq}`} />
      </>
    );
  }
  if (row.role === "assistant") {
    const calls = payload.role === "assistant" ? (payload.tool_calls ?? []) : [];
    const usage: Partial<AssistantUsage> = meta.usage ?? {};
    const reasoning = typeof meta.reasoning === "string" ? meta.reasoning : "";
    const text = contentText(payload.content);
    return (
      <>
        {head(
          "Assistant",
          <span class="usage" data-testid="row-usage">
            {usd(row.cost_usd)} · {tokens(usage.prompt_tokens)} in{usage.cached_tokens ? ` (${tokens(usage.cached_tokens)} cached)` : ""} ·{" "}
            {tokens(usage.completion_tokens)} out
            {usage.reasoning_tokens ? ` (${tokens(usage.reasoning_tokens)} reasoning)` : ""}
            {typeof meta.latency_ms === "number" ? ` · ${(meta.latency_ms / 1000).toFixed(1)} s` : ""}
          </span>,
        )}
        {reasoning && (
          <details class="reasoning">
            <summary>Reasoning</summary>
            <div class="text">{reasoning}</div>
          </details>
        )}
        {text && <Markdown text={text} />}
        {calls.map((call) => (
          <div class="tool-call" key={call.id} data-tool-call={call.function.name}>
            <div>
              <span class="badge">Tool call</span> <code>{call.function.name}</code> <span class="muted">{call.id}</span>
              <ScriptChip agentId={props.agentId} call={call} />
            </div>
            <pre role="group" aria-label={`Arguments of ${call.function.name}`}>
              {prettyArguments(call.function.arguments)}
            </pre>
          </div>
        ))}
        <PromptReplay runId={props.runId} seq={row.seq} recorded={{ content: text, toolCalls: calls, model: String(meta.model ?? "") }} />
      </>
    );
  }
  const content = contentText(payload.content);
  const interrupted = meta.source === "interruption";
  return (
    <>
      {head(
        `Result of ${String(meta.tool_name ?? "tool")}`,
        <span class="usage">
          {interrupted && (
            <span class="badge status-error" data-testid="interrupted">
              Interrupted
            </span>
          )}
          {props.stubbed && (
            <span class="badge status-stub" title="A later prompt sent a stub in place of this result (context pressure)">
              Stubbed in later prompts
            </span>
          )}
          {typeof meta.duration_ms === "number" ? ` ${meta.duration_ms} ms` : ""}
          <span class="muted"> {payload.role === "tool" ? payload.tool_call_id : ""}</span>
        </span>,
      )}
      <details class="tool-result" open={content.length < 600}>
        <summary>{content.length.toLocaleString("en-US")} characters</summary>
        <pre>{content}</pre>
      </details>
      <AttachmentThumbs images={imageRefs(meta.attachments)} label={`Screenshots of ${String(meta.tool_name ?? "the tool")}`} />
      {meta.secret_request !== undefined && <SecretRequestCard runId={props.runId} seq={row.seq} />}
    </>
  );
}

/** A script_create call's chip naming the script it wrote; it opens that script's card (UI-028). */
function ScriptChip(props: { agentId: string; call: ToolCall }) {
  const name = createdScriptName(props.call.function.name, props.call.function.arguments);
  if (!name) return null;
  return (
    <>
      {" "}
      <Link href={scriptsHref(props.agentId, name)} class="chip script-chip">
        Script {name}.py
      </Link>
    </>
  );
}
