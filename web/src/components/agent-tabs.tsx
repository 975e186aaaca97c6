import { Link } from "./link";

const TABS = [
  ["chats", "Chats & history", ""],
  ["routines", "Routine", "/routines"],
  ["settings", "Settings", "/settings"],
] as const;

/** The agent's pages as tabs: links, so each has its address and works from the keyboard. */
export function AgentTabs(props: { agentId: string; current: (typeof TABS)[number][0] }) {
  return (
    <nav class="tabs" aria-label="Agent pages">
      {TABS.map(([key, label, suffix]) => (
        <Link key={key} href={`/agents/${props.agentId}${suffix}`} aria-current={props.current === key ? "page" : undefined}>{label}</Link>
      ))}
    </nav>
  );
}
