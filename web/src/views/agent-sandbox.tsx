import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { Field } from "../components/field";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { startingText, viewerMessage } from "../lib/sandbox-view";
import { useSandboxView } from "../lib/use-sandbox-view";

/**
 * What a view's frame may do. Its page is served by the agent's box, so it gets no
 * same-origin right: it cannot reach the console's storage or its token.
 */
const FRAME_SANDBOX = "allow-scripts allow-forms allow-modals allow-downloads allow-pointer-lock";

/**
 * The agent's Browser tab (UI-011..013, OP-UI-9): its standard box's desktop through noVNC,
 * scaled to the pane, with a clipboard strip.
 */
export function AgentBrowserView(props: { id: string }) {
  return (
    <SandboxPage id={props.id} view="browser" title="Browser of" enabled={(a) => a.browser} off="This agent has no browser access.">
      <BrowserPane agentId={props.id} />
    </SandboxPage>
  );
}

/** The agent's CLI tab (UI-014): a root shell in its box through ttyd. */
export function AgentCliView(props: { id: string }) {
  return (
    <SandboxPage id={props.id} view="cli" title="CLI of" enabled={(a) => a.cli} off="This agent's CLI is off.">
      <CliPane agentId={props.id} />
    </SandboxPage>
  );
}

function SandboxPage(props: {
  id: string;
  view: "browser" | "cli";
  title: string;
  enabled: (agent: { browser: boolean; cli: boolean }) => boolean;
  off: string;
  children: ComponentChildren;
}) {
  const { agent, guild } = useAgentPage(props.id);
  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;
  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={`${props.title} ${a.name}`} current={props.view} />
      {props.enabled(a) ? (
        props.children
      ) : (
        <Notice kind="info">
          {props.off} Turn it on in the agent's <Link href={`/agents/${a.id}/settings`}>settings</Link>.
        </Notice>
      )}
    </section>
  );
}

/** Progress while the box comes up, the reason when it cannot, the frame once it is up. */
function ViewFrame(props: { agentId: string; view: "browser" | "cli"; label: string; frame?: preact.Ref<HTMLIFrameElement> }) {
  const view = useSandboxView(props.agentId, props.view);
  if (view.failure) {
    return (
      <Notice kind="error">
        The {props.label} is unavailable: {view.failure}{" "}
        <button type="button" onClick={view.retry}>
          Try again
        </button>
      </Notice>
    );
  }
  if (!view.url) {
    return (
      <p class="sandbox-progress" aria-live="polite" aria-busy="true">
        <span class="spinner" aria-hidden="true" /> {startingText(view.state)}
      </p>
    );
  }
  return (
    <>
      <iframe key={view.loads} ref={props.frame} class={`sandbox-frame sandbox-${props.view}`} title={props.label} src={view.url} sandbox={FRAME_SANDBOX} />
      <p class="muted">
        {/* The tab keeps its link renewed; a reload opens the view again under the newest one. */}
        <button type="button" onClick={view.reconnect}>
          Reconnect
        </button>{" "}
        loads the {props.label} again, e.g. after its session closed.
      </p>
    </>
  );
}

function BrowserPane(props: { agentId: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [connection, setConnection] = useState<string>("Connecting…");
  const [remote, setRemote] = useState<string | null>(null);
  const [text, setText] = useState("");

  useEffect(() => {
    const receive = (event: MessageEvent) => {
      // Only the view's own frame speaks here.
      if (!frame.current || event.source !== frame.current.contentWindow) return;
      const message = viewerMessage(event.data);
      if (message?.state === "connected") setConnection("Connected: the agent's browser at 1280×720, scaled to fit.");
      if (message?.state === "reconnecting") setConnection("Connecting to the agent's desktop…");
      if (message?.state === "disconnected") setConnection("Disconnected from the agent's browser. Open the tab again to reconnect.");
      if (message?.state === "failed") setConnection(`The view could not start: ${message.message ?? "unknown reason"}`);
      if (message?.clipboard !== undefined) setRemote(message.clipboard);
    };
    addEventListener("message", receive);
    return () => removeEventListener("message", receive);
  }, []);

  const paste = () => frame.current?.contentWindow?.postMessage({ type: "paste", text }, "*");
  const copy = () => {
    if (remote === null) return;
    setText(remote);
    void navigator.clipboard?.writeText(remote).catch(() => {});
  };

  return (
    <>
      <p class="muted" aria-live="polite" data-testid="vnc-connection">
        {connection}
      </p>
      <ViewFrame agentId={props.agentId} view="browser" label="agent's browser" frame={frame} />
      <div class="clipboard-strip" role="group" aria-label="Clipboard">
        <Field
          name="clipboard"
          label="Clipboard"
          prefix="browser"
          hint="Paste to box puts this text on the box's clipboard; Copy from box takes the box's last copied text."
        >
          {(a) => <textarea {...a} rows={2} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />}
        </Field>
        <button type="button" onClick={paste} disabled={!text}>
          Paste to box
        </button>{" "}
        <button type="button" onClick={copy} disabled={remote === null}>
          Copy from box
        </button>
      </div>
    </>
  );
}

function CliPane(props: { agentId: string }) {
  return <ViewFrame agentId={props.agentId} view="cli" label="agent's terminal" />;
}
