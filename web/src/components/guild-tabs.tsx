import type { Guild } from "../lib/api";
import { Link } from "./link";

const TABS = [
  ["agents", "Agents & settings", ""],
  ["chat", "Group chat", "/chat"],
  ["repositories", "Repositories", "/repositories"],
  ["tasks", "Tasks", "/tasks"],
] as const;

type Tab = (typeof TABS)[number][0];

/** The top of a guild page: crumbs, the heading, and the guild's pages as tabs (links, each with its address). */
export function GuildHeader(props: { guild: Guild; title: string; current: Tab }) {
  return (
    <>
      <p class="crumbs">
        <Link href="/guilds">Guilds</Link> ›
        {props.current !== "agents" && (
          <>
            {" "}
            <Link href={`/guilds/${props.guild.id}`}>{props.guild.name}</Link> ›
          </>
        )}
      </p>
      <h1>{props.title}</h1>
      <nav class="tabs" aria-label="Guild pages">
        {TABS.map(([key, label, suffix]) => (
          <Link key={key} href={`/guilds/${props.guild.id}${suffix}`} aria-current={props.current === key ? "page" : undefined}>
            {label}
          </Link>
        ))}
      </nav>
    </>
  );
}
