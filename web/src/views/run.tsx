import { useEffect, useRef, useState } from "preact/hooks";
import { Composer } from "../components/composer";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { RunChanges } from "../components/run-changes";
import { Transcript } from "../components/transcript";
import { type Agent, ApiError, api, describe, type Guild, type Run, unwrap } from "../lib/api";
import { kindLabel, usd } from "../lib/format";
import { mergeErrors } from "../lib/live-run";
import { navigate } from "../lib/router";
import { continuedTo } from "../lib/run-chain";
import { linkedSeq } from "../lib/scripts";
import { useRunTranscript } from "../lib/use-run-transcript";

/**
 * One run: its transcript from history, then live over SSE (rows, token deltas,
 * status, errors; reconnecting with Last-Event-ID, each seq shown once), the composer,
 * Cancel while it generates, Resume once it is completed, Archive, and its errors.
 */
export function RunView(props: { id: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [agent, setAgent] = useState<Agent | null>(null);
  const [guild, setGuild] = useState<Guild | null>(null);
  const [action, setAction] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  const { live, failure, connection, update } = useRunTranscript(props.id, {
    // The run before its rows; its agent and guild for the crumbs, when they come.
    opening: async () => {
      const first = await refreshRun();
      update((s) => ({ ...s, generating: first.generating === true }));
      void unwrap(api.GET("/api/agents/{id}", { params: { path: { id: first.agent_id } } }))
        .then(async (a) => {
          setAgent(a);
          setGuild(await unwrap(api.GET("/api/guilds/{id}", { params: { path: { id: a.guild_id } } })));
        })
        .catch(() => {});
    },
    // The run handed off (CHAIN-011): the view follows the chain to the new run.
    takes: (event) => {
      if (event.event !== "run.continued") return false;
      const next = continuedTo(event.data);
      if (next) navigate(`/runs/${next}`);
      return true;
    },
    // A finished generation: refresh the run's status, errors and cost.
    applied: (event, before, after) => {
      if (event.event === "status" && before.generating && !after.generating) void refreshRun().catch(() => {});
    },
    // UI-007: after a drop, the ordered history is reloaded, then the run.
    reloaded: async () => {
      await refreshRun();
    },
    describe,
  });

  const refreshRun = async () => {
    const next = await unwrap(api.GET("/api/runs/{id}", { params: { path: { id: props.id } } }));
    setRun(next);
    update((s) => ({ ...s, status: next.status, errors: mergeErrors(s.errors, next.errors) }));
    return next;
  };

  // Follow the transcript's end while the reader is near it.
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 240) el.scrollTop = el.scrollHeight;
  }, [live.rows.length, live.draft?.content.length, live.draft?.reasoning.length]);

  // A link to one of the run's steps (`#seq-<n>`, a script's author) opens the transcript at that row.
  const [target] = useState(() => linkedSeq(location.hash));
  const hasRows = live.rows.length > 0;
  useEffect(() => {
    if (target !== null && hasRows) document.getElementById(`seq-${target}`)?.scrollIntoView({ block: "center" });
  }, [hasRows]);

  if (failure && !run) return <Notice kind="error">Could not open the run: {failure}</Notice>;
  if (!run) return <p aria-busy="true">Loading…</p>;

  const cancel = async () => {
    setAction(null);
    try {
      setRun(await unwrap(api.POST("/api/runs/{id}/cancel", { params: { path: { id: run.id } } })));
      setAction({ kind: "success", text: "Generation cancelled." });
    } catch (e) {
      setAction({ kind: "error", text: `Could not cancel: ${describe(e)}` });
    }
  };
  const resume = async () => {
    setAction(null);
    try {
      const next = await unwrap(api.POST("/api/runs/{id}/resume", { params: { path: { id: run.id } } }));
      setRun(next);
      update((s) => ({ ...s, status: next.status }));
      setAction({ kind: "success", text: "Run resumed: it accepts messages again." });
    } catch (e) {
      const reason = e instanceof ApiError && typeof e.details.reason === "string" ? ` (reason: ${e.details.reason})` : "";
      setAction({ kind: "error", text: `Could not resume: ${describe(e)}${reason}` });
    }
  };

  // RUN-024: an archived run takes no message and no resume until it is unarchived.
  const archive = async (archived: boolean) => {
    setAction(null);
    try {
      const path = { params: { path: { id: run.id } } };
      setRun(await unwrap(archived ? api.POST("/api/runs/{id}/archive", path) : api.POST("/api/runs/{id}/unarchive", path)));
      setAction({ kind: "success", text: archived ? "Run archived." : "Run taken out of the archive." });
    } catch (e) {
      setAction({ kind: "error", text: `Could not ${archived ? "archive" : "unarchive"}: ${describe(e)}` });
    }
  };

  const status = live.status ?? run.status;
  const cost = live.rows.reduce((sum, r) => sum + Number(r.cost_usd ?? 0), 0);
  return (
    <div class="run-view">
      <header class="run-head">
        <p class="crumbs">
          <Link href="/guilds">Guilds</Link> ›{" "}
          {agent ? (
            <>
              <Link href={`/guilds/${agent.guild_id}`}>{guild?.name ?? "Guild"}</Link> › <Link href={`/agents/${agent.id}`}>{agent.name}</Link> ›
            </>
          ) : (
            "…"
          )}
        </p>
        <div class="title-row">
          <h1>{run.label}</h1>
          <span class={`badge kind-${run.kind}`}>{kindLabel(run.kind)}</span>
          <span class={`badge status-${status}`} data-testid="run-status">
            {status}
          </span>
          {live.generating && (
            <span class="badge status-generating" data-testid="generating">
              generating
            </span>
          )}
          <span class="live" data-connection={connection}>
            {connection === "open" ? "● live" : connection === "closed" ? "offline" : "connecting…"}
          </span>
          <span class="spacer" />
          <span class="cost" title="Sum of the rows' cost">
            {usd(cost)}
          </span>
          {live.generating && (
            <button type="button" class="danger" onClick={cancel}>
              Cancel generation
            </button>
          )}
          {status === "completed" && !run.archived_at && !run.continued_by_run_id && (
            <button type="button" class="primary" onClick={resume}>
              Resume run
            </button>
          )}
          {run.archived_at ? (
            <button type="button" onClick={() => archive(false)}>
              Unarchive
            </button>
          ) : (
            !live.generating && (
              <button type="button" onClick={() => archive(true)}>
                Archive
              </button>
            )
          )}
        </div>
        {run.archived_at && (
          <Notice kind="info">
            <span data-testid="run-archived">Archived</span> on {new Date(run.archived_at).toLocaleString()}: it takes no messages and cannot be resumed.
          </Notice>
        )}
        {run.kind === "schedule" && (
          <p class="muted">
            Schedule{" "}
            {run.schedule_id ? (
              <Link href={`/agents/${run.agent_id}/routines#routine-${run.schedule_id}`}>
                <code>{run.schedule_id}</code>
              </Link>
            ) : (
              <code>–</code>
            )}
            {run.instruction_hash && (
              <>
                {" "}
                · instruction <code>{run.instruction_hash.slice(0, 12)}</code>
              </>
            )}
          </p>
        )}
        {run.kind === "group" && (
          <p class="muted" data-testid="group-delivery">
            Woken by the group chat
            {agent && (
              <>
                {" "}
                of <Link href={`/guilds/${agent.guild_id}/chat`}>{guild?.name ?? "its guild"}</Link>
              </>
            )}
            {typeof run.metadata.group_chat_through_seq === "number" && <> · delivered through seq {run.metadata.group_chat_through_seq}</>}
          </p>
        )}
        {run.chain && (
          <p class="muted" data-testid="continued-from">
            Continued from <Link href={`/runs/${run.chain.previous_run_id}`}>the previous run</Link> · run {run.chain.index} of its chain
            {run.chain.root_run_id !== run.chain.previous_run_id && (
              <>
                {" "}
                (<Link href={`/runs/${run.chain.root_run_id}`}>first run</Link>)
              </>
            )}
          </p>
        )}
        {run.continued_by_run_id && (
          <Notice kind="info" testId="continued-in">
            Continued in <Link href={`/runs/${run.continued_by_run_id}`}>a newer run</Link>: this run handed off its work and takes no more messages.
          </Notice>
        )}
        {action && <Notice kind={action.kind}>{action.text}</Notice>}
        {failure && <Notice kind="error">{failure}</Notice>}
        {live.errors.length > 0 && (
          <section class="run-errors" aria-label="Run errors" data-testid="run-errors">
            <ul>
              {live.errors.map((e, i) => (
                <li key={i}>
                  <code>{e.code}</code>
                  {e.generation != null ? ` (generation ${e.generation})` : ""}: {e.message}
                </li>
              ))}
            </ul>
          </section>
        )}
        {run.repos && run.repos.length > 0 && <RunChanges runId={run.id} repos={run.repos} />}
      </header>
      <div class="transcript-scroll" ref={scroller} role="region" tabIndex={0} aria-label="Transcript, scrollable">
        <Transcript runId={run.id} agentId={run.agent_id} target={target} rows={live.rows} draft={live.draft} generating={live.generating} />
      </div>
      <Composer runId={run.id} status={status} generating={live.generating} onCancel={cancel} />
    </div>
  );
}
