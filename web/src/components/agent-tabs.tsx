import { type Agent, api, type Guild, unwrap } from "../lib/api";
import { useLoad } from "../lib/use-load";
import { Link } from "./link";

const TABS = [
  ["chats", "Chats & history", ""],
  ["browser", "Browser", "/browser"],
  ["cli", "CLI", "/cli"],
  ["routines", "Routine", "/routines"],
  ["scripts", "Scripts", "/scripts"],
  ["settings", "Settings", "/settings"],
] as const;

type Tab = (typeof TABS)[number][0];

/**
 * The agent's pages as tabs: links, so each has its address and works from the keyboard.
 * Browser only for an agent with browser access, CLI while its cli flag is on (OP-UI-9),
 * Scripts while scripting is on (UI-016).
 */
export function AgentTabs(props: { agent: Pick<Agent, "id" | "browser" | "cli" | "scripting">; current: Tab }) {
  const { browser, cli, scripting } = props.agent;
  const shown = TABS.filter(([key]) => (key === "browser" ? browser : key === "cli" ? cli : key === "scripts" ? scripting : true));
  return (
    <nav class="tabs" aria-label="Agent pages">
      {shown.map(([key, label, suffix]) => (
        <Link key={key} href={`/agents/${props.agent.id}${suffix}`} aria-current={props.current === key ? "page" : undefined}>
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
      <AgentTabs agent={agent} current={props.current} />
    </>
  );
}
