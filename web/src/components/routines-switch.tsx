import { useState } from "preact/hooks";
import { api, describe, type Guild, unwrap } from "../lib/api";
import { Notice } from "./notice";

/**
 * The guild's routines switch (OP-UI-5), applied at once: off, no routine of the guild's
 * agents wakes them; on again, routines already due are planned afresh from now.
 */
export function RoutinesSwitch(props: { guild: Guild; onSaved: (guild: Guild) => void }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  const on = props.guild.routines_enabled;

  const flip = async (next: boolean) => {
    setBusy(true);
    setMessage(null);
    try {
      props.onSaved(await unwrap(api.PATCH("/api/guilds/{id}", { params: { path: { id: props.guild.id } }, body: { routines_enabled: next } })));
      setMessage({ kind: "success", text: next ? "Routines are on." : "Routines are off." });
    } catch (e) {
      setMessage({ kind: "error", text: `The switch was not changed: ${describe(e)}` });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card routines-switch" aria-labelledby="routines-switch" data-testid="routines-switch">
      <div class="title-row">
        <h2 id="routines-switch">Routines</h2>
        <span class={`badge ${on ? "status-active" : "status-stub"}`}>{on ? "on" : "off"}</span>
      </div>
      <div class="field toggle">
        <input
          type="checkbox"
          role="switch"
          id="guild-routines_enabled"
          name="routines_enabled"
          checked={on}
          aria-checked={on}
          disabled={busy}
          aria-describedby="guild-routines_enabled-hint"
          onChange={(e) => void flip((e.currentTarget as HTMLInputElement).checked)}
        />
        <label for="guild-routines_enabled">Routines enabled</label>
      </div>
      <small id="guild-routines_enabled-hint" class="hint">
        Applies at once to every agent of this guild. Off: no routine wakes an agent. On again: routines that came due meanwhile are planned afresh from now;
        missed wake-ups are not made up.
      </small>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </section>
  );
}
