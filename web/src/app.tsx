import { useEffect, useState } from "preact/hooks";
import { Link } from "./components/link";
import { setUnauthorizedHandler } from "./lib/api";
import { clearToken, getToken } from "./lib/auth";
import { match, navigate, usePath } from "./lib/router";
import { AgentView } from "./views/agent";
import { AgentBrowserView, AgentCliView } from "./views/agent-sandbox";
import { AgentSettingsView } from "./views/agent-settings";
import { ConnectionsView, McpCallbackView } from "./views/connections";
import { GitHubSetupView } from "./views/github-setup";
import { GroupChatView } from "./views/group-chat";
import { GuildView } from "./views/guild";
import { GuildsView } from "./views/guilds";
import { RepositoriesView } from "./views/repositories";
import { RoutinesView } from "./views/routines";
import { RunView } from "./views/run";
import { ScriptsView } from "./views/scripts";
import { SecretsView } from "./views/secrets";
import { SignInView } from "./views/sign-in";
import { TaskView } from "./views/task";
import { TasksView } from "./views/tasks";
import { TokensView } from "./views/tokens";
import { UsageView } from "./views/usage";

/** The console's frame: sign-in gate, navigation, and the view of the current path. */
export function App() {
  const path = usePath();
  const [token, setTokenState] = useState(getToken());
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setTokenState(null);
      setNotice("Your token is no longer accepted. Sign in again.");
    });
  }, []);

  const route = match(path);
  useEffect(() => {
    const titles: Record<string, string> = {
      guilds: "Guilds",
      guild: "Guild",
      "guild-chat": "Group chat",
      "guild-repositories": "Repositories",
      "guild-tasks": "Tasks",
      task: "Task",
      agent: "Agent",
      "agent-settings": "Agent settings",
      "agent-routines": "Routine",
      "agent-scripts": "Scripts",
      "agent-browser": "Browser",
      "agent-cli": "CLI",
      run: "Run",
      usage: "Usage",
      tokens: "API tokens",
      secrets: "Secrets",
      "github-setup": "Connecting GitHub",
      connections: "Connections",
      "mcp-callback": "Authorising a connection",
      "sign-in": "Sign in",
    };
    document.title = `${titles[route.view] ?? "Not found"} · Guilds console`;
  }, [route.view]);

  if (!token || route.view === "sign-in") {
    return (
      <SignInView
        notice={notice}
        onSignedIn={(t) => {
          setTokenState(t);
          setNotice(null);
          if (route.view === "sign-in") navigate("/guilds", { replace: true });
        }}
      />
    );
  }

  const signOut = () => {
    clearToken();
    setTokenState(null);
    setNotice("Signed out.");
    navigate("/sign-in", { replace: true });
  };

  return (
    <div class="frame">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/guilds" class="brand">
          Guilds console
        </Link>
        <nav aria-label="Main">
          <Link
            href="/guilds"
            aria-current={
              [
                "guilds",
                "guild",
                "guild-chat",
                "guild-tasks",
                "task",
                "agent",
                "agent-settings",
                "agent-routines",
                "agent-scripts",
                "agent-browser",
                "agent-cli",
                "run",
              ].includes(route.view)
                ? "page"
                : undefined
            }
          >
            Guilds &amp; agents
          </Link>
          <Link href="/usage" aria-current={route.view === "usage" ? "page" : undefined}>
            Usage
          </Link>
          <Link href="/secrets" aria-current={route.view === "secrets" ? "page" : undefined}>
            Secrets
          </Link>
          <Link href="/connections" aria-current={route.view === "connections" ? "page" : undefined}>
            Connections
          </Link>
          <Link href="/tokens" aria-current={route.view === "tokens" ? "page" : undefined}>
            API tokens
          </Link>
        </nav>
        <button type="button" class="signout" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === "guilds" && <GuildsView />}
        {route.view === "guild" && <GuildView key={route.id} id={route.id!} />}
        {route.view === "guild-chat" && <GroupChatView key={route.id} id={route.id!} />}
        {route.view === "guild-repositories" && <RepositoriesView key={route.id} id={route.id!} />}
        {route.view === "guild-tasks" && <TasksView key={route.id} id={route.id!} />}
        {route.view === "task" && <TaskView key={route.id} id={route.id!} />}
        {route.view === "agent" && <AgentView key={route.id} id={route.id!} />}
        {route.view === "agent-settings" && <AgentSettingsView key={route.id} id={route.id!} />}
        {route.view === "agent-routines" && <RoutinesView key={route.id} id={route.id!} />}
        {route.view === "agent-scripts" && <ScriptsView key={route.id} id={route.id!} />}
        {route.view === "agent-browser" && <AgentBrowserView key={route.id} id={route.id!} />}
        {route.view === "agent-cli" && <AgentCliView key={route.id} id={route.id!} />}
        {route.view === "run" && <RunView key={route.id} id={route.id!} />}
        {route.view === "usage" && <UsageView />}
        {route.view === "tokens" && <TokensView />}
        {route.view === "secrets" && <SecretsView />}
        {route.view === "github-setup" && <GitHubSetupView />}
        {route.view === "connections" && <ConnectionsView />}
        {route.view === "mcp-callback" && <McpCallbackView />}
        {route.view === "not-found" && (
          <section>
            <h1>Not found</h1>
            <p>
              There is no page at {path}. <Link href="/guilds">Go to the guilds</Link>.
            </p>
          </section>
        )}
      </main>
    </div>
  );
}
