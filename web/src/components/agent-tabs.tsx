import { type Agent, api, type Guild, unwrap } from "../lib/api";
import { useLoad } from "../lib/use-load";
import { Link } from "./link";

const TABS = [
  ["chats", "Chats & history", ""],
  ["routines", "Routine", "/routines"],
  ["settings", "Settings", "/settings"],
] as const;

type Tab = (typeof TABS)[number][0];

/** The agent's pages as tabs: links, so each has its address and works from the keyboard. */
export function AgentTabs(props: { agentId: string; current: Tab }) {
  return (
    <nav class="tabs" aria-label="Agent pages">
      {TABS.map(([key, label, suffix]) => (
        <Link key={key} href={`/agents/${props.agentId}${suffix}`} aria-current={props.current === key ? "page" : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}

/** What every agent page loads: the agent, then its guild (for the crumbs and the routines switch). */
export function useAgentPage(id: string) {
  const agent = useLoad(() => unwrap(api.GET("/api/agents/{id}", { params: { path: { id } } })), [id]);
  const guild = useLoad(
    async () => (agent.data ? unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: agent.data.guild_id } } })) : null),
    [agent.data?.guild_id],
  );
  return { agent, guild };
}

/**
 * The top of an agent page: crumbs back to its guild (and to the agent, on a sub-page),
 * the heading, and the tabs.
 */
export function AgentHeader(props: { agent: Agent; guild: Guild | null; title: string; current: Tab }) {
  const { agent, guild } = props;
  return (
    <>
      <p class="crumbs">
        <Link href="/guilds">Guilds</Link> › {guild ? <Link href={`/guilds/${guild.id}`}>{guild.name}</Link> : "…"} ›
        {props.current !== "chats" && (
          <>
            {" "}
            <Link href={`/agents/${agent.id}`}>{agent.name}</Link> ›
          </>
        )}
      </p>
      <h1>{props.title}</h1>
      <AgentTabs agentId={agent.id} current={props.current} />
    </>
  );
}
