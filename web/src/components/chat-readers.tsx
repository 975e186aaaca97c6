import { type ChatState, reading } from "../lib/group-chat";
import { Link } from "./link";

/**
 * Who is reading the chat now (a group run between its `started` and `completed`
 * delivery events), and how far each agent read last, each linked to its run.
 */
export function ChatReaders(props: { chat: ChatState }) {
  const now = reading(props.chat);
  const read = props.chat.deliveries.filter((d) => d.state === "completed");
  return (
    <span class="readers" data-testid="readers" aria-live="polite">
      {now.length > 0 ? (
        <span data-testid="reading">
          <span class="spinner" aria-hidden="true" /> Reading the chat now:{" "}
          {now.map((d, i) => (
            <span key={d.agent_id}>
              {i > 0 && ", "}
              <Link href={`/runs/${d.run_id}`}>{d.agent_name}</Link> <span class="muted">(through #{d.through_seq})</span>
            </span>
          ))}
        </span>
      ) : (
        <span class="muted">No agent is reading the chat right now.</span>
      )}
      {read.length > 0 && (
        <span class="muted" data-testid="read">
          {" "}
          · Read:{" "}
          {read.map((d, i) => (
            <span key={d.agent_id}>
              {i > 0 && ", "}
              {d.agent_name} through #{d.through_seq} (<Link href={`/runs/${d.run_id}`}>run</Link>)
            </span>
          ))}
        </span>
      )}
    </span>
  );
}
