import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, describe, unwrap } from "../lib/api";
import { readyIds, sendable, transferredFiles } from "../lib/attachments";
import { COMPOSER_KEYS_HINT, sendsMessage } from "../lib/composer-keys";
import { ImageAttachments, useImageAttachments } from "./image-attachments";
import { Link } from "./link";
import { Notice } from "./notice";

type Problem = { kind: "busy"; runId: string | null } | { kind: "refused"; message: string; latestRunId?: string } | { kind: "failed"; message: string };

/**
 * Sends a user message to the run (POST /api/runs/:id/messages); Enter sends, Shift+Enter
 * starts a new line (Ctrl/Cmd+Enter sends too). Images (chosen, dropped on the composer or
 * pasted into the text) go along once uploaded; with images the text may be empty (UI-009).
 * The sent text and images are cleared only once the API accepted them (202), and only
 * those: what was typed or added meanwhile stays. A 409 `agent.busy` is shown plainly and
 * they stay for another try.
 */
export function Composer(props: { runId: string; status: string; generating: boolean; onCancel: () => void }) {
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [sending, setSending] = useState(false);
  const images = useImageAttachments();
  // Whether files are dragged over the composer (its outline shows where they go).
  const [dragging, setDragging] = useState(false);
  // Set at once, so a second Enter before the re-render does not send twice.
  const inFlight = useRef(false);
  // A refusal may not hold once the run changes (resumed, say): let the operator try again.
  useEffect(() => setProblem((p) => (p?.kind === "refused" ? null : p)), [props.status]);

  const send = async (event?: Event) => {
    event?.preventDefault();
    if (!sendable(text, images.images) || inFlight.current) return;
    inFlight.current = true;
    setSending(true);
    const sentText = text;
    const sentImages = images.images;
    try {
      await unwrap(
        api.POST("/api/runs/{id}/messages", { params: { path: { id: props.runId } }, body: { content: sentText, attachments: readyIds(sentImages) } }),
      );
      setText((t) => (t === sentText ? "" : t));
      images.clearSent(sentImages);
      setProblem(null);
    } catch (e) {
      if (e instanceof ApiError && e.code === "agent.busy") {
        setProblem({ kind: "busy", runId: typeof e.details.run_id === "string" ? e.details.run_id : null });
      } else if (e instanceof ApiError && e.status === 409) {
        const latest = typeof e.details.latest_run_id === "string" ? e.details.latest_run_id : undefined;
        setProblem({ kind: "refused", message: describe(e), ...(latest ? { latestRunId: latest } : {}) });
      } else {
        setProblem({ kind: "failed", message: describe(e) });
      }
    } finally {
      inFlight.current = false;
      setSending(false);
    }
  };

  return (
    <form
      class={`composer${dragging ? " dropping" : ""}`}
      onSubmit={send}
      aria-label="Send a message"
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        // Without this the browser would open the dropped file in place of the console.
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        setDragging(false);
        images.add(transferredFiles(e.dataTransfer));
      }}
    >
      {problem?.kind === "busy" && (
        <Notice kind="warning" testId="busy">
          <strong>Busy: not sent.</strong>{" "}
          {problem.runId && problem.runId !== props.runId ? (
            <>
              The agent is generating in <Link href={`/runs/${problem.runId}`}>another run</Link>.
            </>
          ) : props.generating ? (
            <>The agent is still generating its reply here.</>
          ) : (
            <>The agent was generating; it has finished now.</>
          )}{" "}
          Your message is kept below: send it again when the agent is free
          {props.generating && problem.runId === props.runId && (
            <>
              , or{" "}
              <button type="button" class="link" onClick={props.onCancel}>
                cancel the generation
              </button>
            </>
          )}
          .
        </Notice>
      )}
      {problem?.kind === "refused" && (
        <Notice kind="error" testId="refused">
          Not sent: {problem.message}.
          {problem.latestRunId && (
            <>
              {" "}
              <Link href={`/runs/${problem.latestRunId}`}>Go to the latest run</Link>.
            </>
          )}{" "}
          Your message is kept below.
        </Notice>
      )}
      {problem?.kind === "failed" && <Notice kind="error">Not sent: {problem.message}. Your message is kept below.</Notice>}
      <div class="composer-row">
        <label for="composer-text" class="sr-only">
          Message
        </label>
        <textarea
          id="composer-text"
          name="content"
          rows={2}
          value={text}
          aria-describedby="composer-keys"
          placeholder={props.generating ? "The agent is generating; you can type, and send once it is done" : "Message"}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onPaste={(e) => {
            const files = e.clipboardData ? transferredFiles(e.clipboardData) : [];
            if (files.length === 0) return;
            // Pasted text still goes into the box; an image alone adds nothing to it.
            if (!e.clipboardData?.getData("text/plain")) e.preventDefault();
            images.add(files);
          }}
          onKeyDown={(e) => {
            if (sendsMessage(e)) void send(e);
          }}
        />
        <button type="submit" class="primary" disabled={sending || !sendable(text, images.images)}>
          {sending ? "Sending…" : "Send"}
        </button>
      </div>
      <ImageAttachments images={images.images} onAdd={images.add} onRemove={images.remove} />
      <small id="composer-keys" class="hint">
        {COMPOSER_KEYS_HINT}
      </small>
    </form>
  );
}
