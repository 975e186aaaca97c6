import type { Agent, GroupMessage } from "../lib/api";
import { when } from "../lib/format";
import { Link } from "./link";
import { Markdown } from "./markdown";

/**
 * One row of the guild chat: author (an agent's name links to the agent), operator or
 * agent styling, seq and time, the text as Markdown with @mentions of the guild's agents marked,
 * and the agents the server recorded as tagged.
 */
export function ChatMessage(props: { message: GroupMessage; agents: Agent[] }) {
  const m = props.message;
  const nameOf = (id: string) => props.agents.find((a) => a.id === id)?.name ?? id.slice(0, 8);
  return (
    <li class={`chat-msg from-${m.author_kind}`} data-seq={m.seq} data-author-kind={m.author_kind}>
      <header class="row-head">
        {m.author_kind === "agent" && m.author_agent_id ? (
          <Link href={`/agents/${m.author_agent_id}`} class="author">
            {m.author_name}
          </Link>
        ) : (
          <span class="author">{m.author_name}</span>
        )}
        <span class={`badge author-${m.author_kind}`}>{m.author_kind === "operator" ? "Operator" : "Agent"}</span>
        <span class="muted">
          #{m.seq} · <time dateTime={m.created_at}>{when(m.created_at)}</time>
          {m.depth > 0 ? ` · reply depth ${m.depth}` : ""}
        </span>
      </header>
      <Markdown text={m.content} mentions={props.agents.map((a) => a.name)} />
      {m.tagged.length > 0 && (
        <p class="tags" data-testid="tagged">
          Tagged:{" "}
          {m.tagged.map((id) => (
            <span key={id} class="badge tag">
              @{nameOf(id)}
            </span>
          ))}
        </p>
      )}
    </li>
  );
}
