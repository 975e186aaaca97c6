import { useEffect, useRef } from "preact/hooks";
import { api, unwrap } from "./api";
import { getToken } from "./auth";
import { openEventStream } from "./run-stream";
import { scriptsChangedFor } from "./scripts";
import { retryingNotice, untilAvailable } from "./unavailable";

/**
 * Calls `onChange` whenever the agent's scripts change elsewhere (its runs' script tools,
 * the API, another console), heard on the guild's event stream (SCRIPT-040). The stream
 * starts after the chat's newest message, so no history is replayed; after a drop, events
 * may have been missed, so `onChange` runs once more before the stream resumes.
 */
export function useScriptsChanged(guildId: string | undefined, agentId: string, onChange: () => void): void {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (!guildId) return;
    let stream: { close(): void } | null = null;
    let stopped = false;
    void (async () => {
      // Nothing on the page says so, but it waits for the database rather than never listening.
      const newest = await untilAvailable(
        () => unwrap(api.GET("/api/guilds/{id}/chat", { params: { path: { id: guildId }, query: { limit: 1 } } })),
        retryingNotice(() => {}),
        () => stopped,
      ).catch(() => null);
      if (stopped || !newest) return;
      const from = Math.max(0, ...newest.data.map((m) => m.seq));
      stream = openEventStream({
        path: `/api/guilds/${encodeURIComponent(guildId)}/events`,
        token: getToken() ?? "",
        lastSeq: () => from,
        onEvent: (event) => {
          if (scriptsChangedFor(event, agentId)) latest.current();
        },
        beforeReconnect: async () => latest.current(),
      });
    })();
    return () => {
      stopped = true;
      stream?.close();
    };
  }, [guildId, agentId]);
}
