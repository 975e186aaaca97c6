import { useEffect, useRef, useState } from "preact/hooks";
import { api, describe, type GroupMessage, streamRefused, unwrap } from "./api";
import { getToken } from "./auth";
import { applyChatEvent, type ChatGap, type ChatState, emptyChat, gapOf, nextGapPage, reading, settleRuns, withMessages } from "./group-chat";
import { type ConnectionState, openEventStream } from "./run-stream";
import { lastSeq } from "./sse";
import { failureNotice, retryingNotice, untilAvailable } from "./unavailable";

/**
 * A guild chat, held live: the latest 50 messages, then GET /api/guilds/:id/events from
 * the last seq held. After a drop it fetches what it missed (and asks the runs still
 * shown as reading whether they finished), then resumes with Last-Event-ID. A `gap`
 * event (the stream replays only the newest rows) is filled with `before_seq` pages.
 * `loadOlder` pages back with `before_seq`; `add` merges a message the operator posted.
 */
export function useGroupChat(guildId: string) {
  const [chat, setChat] = useState<ChatState>(emptyChat);
  const [loaded, setLoaded] = useState(false);
  const [hasOlder, setHasOlder] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");
  // The state as of the last event, read synchronously by the stream (lastSeq).
  const chatRef = useRef<ChatState>(chat);
  const update = (change: (s: ChatState) => ChatState) => {
    chatRef.current = change(chatRef.current);
    setChat(chatRef.current);
  };
  // The chat's seqs start at 1, and the API takes 0 (not -1) for "from the start".
  const heldSeq = () => Math.max(0, lastSeq(chatRef.current.messages));
  const chatPage = (query: { after_seq?: number; before_seq?: number; limit: number }) =>
    unwrap(api.GET("/api/guilds/{id}/chat", { params: { path: { id: guildId }, query } }));

  useEffect(() => {
    let stream: { close(): void } | null = null;
    let stopped = false;
    // While the database does not answer, the chat says so and reads again (Retry-After).
    const notice = retryingNotice(failureNotice(setFailure));
    const catchUp = async () => {
      for (;;) {
        const page = await chatPage({ after_seq: heldSeq(), limit: 200 });
        update((s) => withMessages(s, page.data));
        if (!page.has_more || page.data.length === 0) break;
      }
      const runs = await Promise.all(
        reading(chatRef.current).map((d) => unwrap(api.GET("/api/runs/{id}", { params: { path: { id: d.run_id } } })).catch(() => null)),
      );
      update((s) =>
        settleRuns(
          s,
          runs.flatMap((r) => (r && !r.generating ? [r.id] : [])),
        ),
      );
    };
    const fillGap = async (gap: ChatGap) => {
      let before: number | null = gap.resumes_at_seq;
      while (before !== null && !stopped) {
        const page = await chatPage({ before_seq: before, limit: 200 });
        update((s) =>
          withMessages(
            s,
            page.data.filter((m) => m.seq > gap.after_seq),
          ),
        );
        before = nextGapPage(gap, page);
      }
    };
    (async () => {
      try {
        const page = await untilAvailable(
          () => chatPage({ limit: 50 }),
          notice,
          () => stopped,
        );
        if (stopped) return;
        update((s) => withMessages(s, page.data));
        setHasOlder(page.has_more);
        setLoaded(true);
      } catch (e) {
        if (!stopped) setFailure(describe(e));
        return;
      }
      if (stopped) return;
      stream = openEventStream({
        path: `/api/guilds/${encodeURIComponent(guildId)}/events`,
        token: getToken() ?? "",
        lastSeq: heldSeq,
        onEvent: (event) => {
          const gap = gapOf(event);
          if (gap) void fillGap(gap).catch((e) => setFailure(describe(e)));
          else update((s) => applyChatEvent(s, event));
        },
        beforeReconnect: catchUp,
        onConnection: setConnection,
        notice,
        onFatal: streamRefused("guild", setFailure),
      });
      if (stopped) stream.close();
    })();
    return () => {
      stopped = true;
      stream?.close();
    };
  }, [guildId]);

  /** The page of messages before the oldest held; `beforeMerge` runs just before they show. */
  const loadOlder = async (beforeMerge: () => void) => {
    const first = chatRef.current.messages[0];
    if (!first) return;
    const page = await chatPage({ before_seq: first.seq, limit: 50 });
    beforeMerge();
    update((s) => withMessages(s, page.data));
    setHasOlder(page.has_more);
  };

  const add = (message: GroupMessage) => update((s) => withMessages(s, [message]));
  return { chat, loaded, hasOlder, failure, connection, loadOlder, add };
}
