import { api, everyPage, unwrap } from "../lib/api";
import { reachingAgent } from "../lib/mcp-connections";
import { useLoad } from "../lib/use-load";
import { Link } from "./link";
import { FromServer } from "./mcp-connection-card";
import { Notice } from "./notice";

/**
 * The MCP connections that reach an agent (organisation-wide, or granted to it or its guild)
 * and the tools each offers it: the enabled ones are what its runs see. Changed on the
 * Connections page.
 */
export function AgentConnections(props: { agent: { id: string; guild_id: string } }) {
  const list = useLoad(
    async () => reachingAgent(await everyPage((cursor) => unwrap(api.GET("/api/mcp/connections", { params: { query: { limit: 200, cursor } } }))), props.agent),
    [props.agent.id],
  );
  return (
    <section class="card" aria-labelledby="settings-connections">
      <h2 id="settings-connections">Connections</h2>
      {list.error && <Notice kind="error">Could not load the connections: {list.error}</Notice>}
      {list.data && list.data.length === 0 && (
        <p class="muted">
          No MCP connection reaches this agent. <Link href="/connections">Add or grant one</Link>.
        </p>
      )}
      {list.data?.map((c) => {
        const enabled = c.tools.filter((t) => t.enabled);
        return (
          <article key={c.id} data-agent-connection={c.slug}>
            <h3>
              <code>{c.slug}</code> <span class="badge">{c.status === "ready" ? "ready" : c.status.replace("_", " ")}</span>
            </h3>
            <p class="muted">
              {enabled.length} of {c.tools.length} tools enabled · <Link href="/connections">manage</Link>
            </p>
            <ul class="mcp-tools" aria-label={`Tools of ${c.slug} for this agent`}>
              {enabled.map((t) => (
                <li key={t.remote_name}>
                  <code>{t.name}</code>
                  <FromServer text={t.from_server.description} />
                </li>
              ))}
            </ul>
          </article>
        );
      })}
    </section>
  );
}
