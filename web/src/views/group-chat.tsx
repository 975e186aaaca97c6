import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ChatComposer } from "../components/chat-composer";
import { ChatMessage } from "../components/chat-message";
import { ChatReaders } from "../components/chat-readers";
import { GuildHeader } from "../components/guild-tabs";
import { Notice } from "../components/notice";
import { api, describe, unwrap } from "../lib/api";
import { lastSeq } from "../lib/sse";
import { useGroupChat } from "../lib/use-group-chat";
import { useLoad } from "../lib/use-load";

/**
 * A guild's group chat: the latest messages and older ones on demand, live over SSE,
 * who is reading it now, and the operator's composer.
 */
export function GroupChatView(props: { id: string }) {
  const guild = useLoad(() => unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: props.id } } })), [props.id]);
  const agents = useLoad(() => unwrap(api.GET("/api/agents", { params: { query: { guild_id: props.id, limit: 200 } } })), [props.id]);
  const { chat, loaded, hasOlder, failure, connection, loadOlder, add } = useGroupChat(props.id);
  const [older, setOlder] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });

  // Follow new messages while the reader is at the end; keep the place when older ones load above.
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const fromBottom = useRef<number | null>(null);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || fromBottom.current === null) return;
    el.scrollTop = el.scrollHeight - fromBottom.current;
    fromBottom.current = null;
  }, [chat.messages]);
  const newest = lastSeq(chat.messages);
  useEffect(() => {
    const el = scroller.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [newest, loaded]);

  const showOlder = async () => {
    setOlder({ busy: true, error: null });
    try {
      await loadOlder(() => {
        const el = scroller.current;
        if (el) fromBottom.current = el.scrollHeight - el.scrollTop;
      });
      setOlder({ busy: false, error: null });
    } catch (e) {
      setOlder({ busy: false, error: describe(e) });
    }
  };

  if (guild.error) return <Notice kind="error">Could not load the guild: {guild.error}</Notice>;
  if (!guild.data) return <p aria-busy="true">Loading…</p>;
  const members = agents.data?.data ?? [];

  return (
    <div class="chat-view">
      <header>
        <GuildHeader guild={guild.data} title={`Group chat of ${guild.data.name}`} current="chat" />
        {failure && <Notice kind="error">{failure}</Notice>}
        {agents.error && <Notice kind="error">Could not load the agents: {agents.error}</Notice>}
        <div class="title-row">
          <ChatReaders chat={chat} />
          <span class="spacer" />
          <span class="live" data-connection={connection}>
            {connection === "open" ? "● live" : connection === "closed" ? "offline" : "connecting…"}
          </span>
        </div>
      </header>
      <div
        class="transcript-scroll chat-scroll"
        ref={scroller}
        role="region"
        tabIndex={0}
        aria-label="Group chat, scrollable"
        onScroll={(e) => {
          const el = e.currentTarget as HTMLDivElement;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 120;
        }}
      >
        {hasOlder && (
          <div class="older">
            <button type="button" onClick={showOlder} disabled={older.busy}>
              {older.busy ? "Loading…" : "Load earlier messages"}
            </button>
            {older.error && <Notice kind="error">Could not load earlier messages: {older.error}</Notice>}
          </div>
        )}
        {!loaded && !failure && (
          <p aria-busy="true" class="muted empty">
            Loading…
          </p>
        )}
        {loaded && chat.messages.length === 0 && <p class="muted empty">No messages yet. Post below to start; @Name tags an agent.</p>}
        <ol class="chat" aria-label="Group chat messages">
          {chat.messages.map((m) => (
            <ChatMessage key={m.seq} message={m} agents={members} />
          ))}
        </ol>
      </div>
      <ChatComposer
        guildId={guild.data.id}
        agents={members}
        onPosted={(m) => {
          follow.current = true;
          add(m);
        }}
      />
    </div>
  );
}
