import { useRef, useState } from "preact/hooks";
import { type Agent, api, type GroupMessage, unwrap } from "../lib/api";
import { COMPOSER_KEYS_HINT, sendsMessage } from "../lib/composer-keys";
import { insertMention } from "../lib/mentions";
import { useSubmit } from "../lib/use-submit";
import { Field } from "./field";
import { Notice } from "./notice";

/**
 * Posts to the guild chat as the operator (POST /api/guilds/:id/chat). Enter (or
 * Ctrl/Cmd+Enter) sends, Shift+Enter breaks the line; the text leaves the box only once the API took it, so a
 * failure or a 422 (shown under the box) keeps it. An agent's chip inserts `@Name`,
 * which the server turns into a tag.
 */
export function ChatComposer(props: { guildId: string; agents: Agent[]; onPosted: (message: GroupMessage) => void }) {
  const [text, setText] = useState("");
  const { errors, failure, busy, run } = useSubmit();
  const box = useRef<HTMLTextAreaElement>(null);
  // Set at once, so a second Enter before the re-render does not post twice.
  const sending = useRef(false);

  const send = async (event?: Event) => {
    event?.preventDefault();
    if (!text.trim() || sending.current) return;
    sending.current = true;
    const sent = text;
    await run(async () => {
      props.onPosted(await unwrap(api.POST("/api/guilds/{id}/chat", { params: { path: { id: props.guildId } }, body: { content: sent } })));
      // What was typed while it was on its way stays.
      setText((t) => (t === sent ? "" : t));
    });
    sending.current = false;
  };

  const tag = (name: string) => {
    const el = box.current;
    const next = insertMention(text, el?.selectionStart ?? text.length, name);
    setText(next.text);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(next.caret, next.caret);
    });
  };

  const elsewhere = Object.entries(errors).filter(([field]) => field !== "content");
  return (
    <form class="chat-composer" onSubmit={send} aria-label="Post to the group chat" noValidate>
      {failure && <Notice kind="error">Not sent: {failure}. Your message is kept below.</Notice>}
      {elsewhere.length > 0 && (
        <Notice kind="error">Not sent: {elsewhere.map(([f, m]) => `${f || "body"}: ${m}`).join("; ")}. Your message is kept below.</Notice>
      )}
      {props.agents.length > 0 && (
        <div class="chips" role="group" aria-label="Tag an agent">
          <span class="muted">Tag:</span>
          {props.agents.map((a) => (
            <button key={a.id} type="button" class="chip" title={`Insert @${a.name}`} onClick={() => tag(a.name)}>
              @{a.name}
            </button>
          ))}
        </div>
      )}
      <div class="composer-row">
        <Field name="content" label="Message to the guild" error={errors.content} prefix="chat" hint={`${COMPOSER_KEYS_HINT} @Name tags an agent.`}>
          {(a) => (
            <textarea
              {...a}
              ref={box}
              rows={2}
              value={text}
              onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (sendsMessage(e)) void send(e);
              }}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={busy || !text.trim()}>
          {busy ? "Sending…" : "Send"}
        </button>
      </div>
    </form>
  );
}
