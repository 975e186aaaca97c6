import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { AgentHeader, useAgentPage } from "../components/agent-tabs";
import { ConfirmDelete } from "../components/confirm";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { RoutineDetails } from "../components/routine-details";
import { RoutineForm } from "../components/routine-form";
import { api, describe, type Schedule, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { triggerText, utc } from "../lib/routines";
import { useLoad } from "../lib/use-load";

/** The routine a link opened (`/agents/:id/routines#routine-<id>`, from a schedule run's page). */
const linkedRoutine = () => (location.hash.startsWith("#routine-") ? decodeURIComponent(location.hash.slice("#routine-".length)) : null);

/**
 * The agent's Routine tab (UI-002, UI-004, OP-UI-4): its schedules with trigger, next
 * wake-up in local time and UTC, last wake-up and pause state; create and edit with a
 * cron or a random window; pause, resume and delete; each routine's preview and runs.
 */
export function RoutinesView(props: { id: string }) {
  const { agent, guild } = useAgentPage(props.id);
  const list = useLoad(async () => (await unwrap(api.GET("/api/agents/{id}/schedules", { params: { path: { id: props.id } } }))).data, [props.id]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(linkedRoutine);
  const [failure, setFailure] = useState<string | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (open && list.data) document.getElementById(`routine-${open}`)?.scrollIntoView({ block: "start" });
    // Only once the list has arrived, for a routine named in the address.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [Boolean(list.data)]);

  if (agent.error) return <Notice kind="error">Could not load the agent: {agent.error}</Notice>;
  if (!agent.data) return <p aria-busy="true">Loading…</p>;
  const a = agent.data;
  const routines = list.data ?? [];
  const routinesOff = guild.data?.routines_enabled === false;

  const replace = (next: Schedule) => list.setData((rows) => (rows ?? []).map((r) => (r.id === next.id ? next : r)));
  const pauseOrResume = async (s: Schedule) => {
    setFailure(null);
    try {
      const path = { params: { path: { id: s.id } } };
      replace(await unwrap(s.paused ? api.POST("/api/schedules/{id}/resume", path) : api.POST("/api/schedules/{id}/pause", path)));
    } catch (e) {
      setFailure(`Could not ${s.paused ? "resume" : "pause"} ${s.description}: ${describe(e)}`);
    }
  };
  const remove = async (s: Schedule) => {
    await unwrap(api.DELETE("/api/schedules/{id}", { params: { path: { id: s.id } } }));
    list.setData((rows) => (rows ?? []).filter((r) => r.id !== s.id));
    newButton.current?.focus();
  };

  return (
    <section>
      <AgentHeader agent={a} guild={guild.data} title={`Routine of ${a.name}`} current="routines" />
      <p class="lead">
        Routines wake the agent by themselves, on a UTC cron or at random times in a daily window; each wake-up is a new "Schedule wake-up" run with the
        routine's instruction.
      </p>
      {routinesOff && guild.data && (
        <Notice kind="warning" testId="routines-off">
          Routines are off in the guild {guild.data.name}: no routine wakes the agent until they are turned on in{" "}
          <Link href={`/guilds/${guild.data.id}`}>the guild's page</Link>.
        </Notice>
      )}
      {failure && <Notice kind="error">{failure}</Notice>}
      <div class="title-row">
        <h2 id="routines">Routines</h2>
        <button type="button" class="link" onClick={() => void list.reload()}>
          Refresh
        </button>
      </div>
      {list.error && <Notice kind="error">Could not load the routines: {list.error}</Notice>}
      {list.loading && !list.data && <p aria-busy="true">Loading…</p>}
      {list.data && routines.length === 0 && <p>No routine yet.</p>}
      {routines.length > 0 && (
        <table class="list routines" aria-describedby="routines">
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col">Trigger</th>
              <th scope="col">Next wake-up</th>
              <th scope="col">Last wake-up</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {routines.map((s) => (
              <RoutineRow
                key={s.id}
                schedule={s}
                routinesOff={routinesOff}
                open={open === s.id}
                editing={editing === s.id}
                onToggleOpen={() => setOpen(open === s.id ? null : s.id)}
                onEdit={() => setEditing(editing === s.id ? null : s.id)}
                onPause={() => pauseOrResume(s)}
                onDelete={() => remove(s)}
                form={
                  <RoutineForm
                    agentId={a.id}
                    schedule={s}
                    onSaved={(next) => {
                      replace(next);
                      setEditing(null);
                    }}
                    onClose={() => setEditing(null)}
                  />
                }
              />
            ))}
          </tbody>
        </table>
      )}
      {!creating && (
        <button ref={newButton} type="button" class="primary" onClick={() => setCreating(true)}>
          New routine
        </button>
      )}
      {creating && (
        <section class="card" aria-labelledby="new-routine">
          <h2 id="new-routine">New routine</h2>
          <RoutineForm
            agentId={a.id}
            schedule={null}
            onSaved={(s) => {
              list.setData((rows) => [...(rows ?? []), s]);
              setCreating(false);
            }}
            onClose={() => setCreating(false)}
          />
        </section>
      )}
    </section>
  );
}

interface RowProps {
  schedule: Schedule;
  routinesOff: boolean;
  open: boolean;
  editing: boolean;
  onToggleOpen: () => void;
  onEdit: () => void;
  onPause: () => void;
  onDelete: () => Promise<void>;
  form: ComponentChildren;
}

/** One routine: its row, and below it its details (preview and runs) or its edit form when opened. */
function RoutineRow({ schedule: s, routinesOff, open, editing, onToggleOpen, onEdit, onPause, onDelete, form }: RowProps) {
  const detailsId = `routine-${s.id}-details`;
  const held = s.paused ? "not while paused" : routinesOff ? "not while routines are off" : null;
  return (
    <>
      <tr id={`routine-${s.id}`} data-routine={s.description} data-paused={s.paused ? "true" : "false"}>
        <td>{s.description}</td>
        <td class="trigger">
          {s.wake_window ? (
            triggerText(s)
          ) : (
            <>
              <code>{s.cron}</code> <span class="muted">(UTC)</span>
            </>
          )}
        </td>
        <td data-testid="next-wake-up" class={held ? "held" : undefined}>
          {s.next_run_at ? (
            <>
              <time dateTime={s.next_run_at}>{when(s.next_run_at)}</time>
              <br />
              <small class="muted">{utc(s.next_run_at)}</small>
            </>
          ) : (
            "–"
          )}
          {held && s.next_run_at && (
            <>
              <br />
              <small class="muted">{held}</small>
            </>
          )}
        </td>
        <td data-testid="last-wake-up">
          {s.last_run_at ? (
            <>
              <time dateTime={s.last_run_at}>{when(s.last_run_at)}</time>
              <br />
              <small class="muted">{utc(s.last_run_at)}</small>
            </>
          ) : (
            <span class="muted">never</span>
          )}
        </td>
        <td>
          <span class={`badge ${s.paused ? "status-stub" : "status-active"}`} data-testid="routine-state">
            {s.paused ? "paused" : "active"}
          </span>
        </td>
        <td class="actions">
          <button type="button" onClick={onPause} aria-label={`${s.paused ? "Resume" : "Pause"} ${s.description}`}>
            {s.paused ? "Resume" : "Pause"}
          </button>{" "}
          <button type="button" onClick={onToggleOpen} aria-expanded={open} aria-controls={open ? detailsId : undefined}>
            Wake-ups &amp; runs
          </button>{" "}
          <button type="button" onClick={onEdit} aria-expanded={editing}>
            Edit
          </button>{" "}
          <ConfirmDelete what={`routine ${s.description}`} onConfirm={onDelete} />
        </td>
      </tr>
      {editing && (
        <tr class="expanded">
          <td colSpan={6}>
            <h3 class="sr-only">Edit {s.description}</h3>
            {form}
          </td>
        </tr>
      )}
      {open && (
        <tr class="expanded" id={detailsId}>
          <td colSpan={6}>
            <RoutineDetails schedule={s} />
          </td>
        </tr>
      )}
    </>
  );
}
