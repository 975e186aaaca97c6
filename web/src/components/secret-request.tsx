import { useState } from "preact/hooks";
import { api, type SecretRequest, unwrap } from "../lib/api";
import { useLoad } from "../lib/use-load";
import { useSubmit } from "../lib/use-submit";
import { Field } from "./field";
import { Notice } from "./notice";

/**
 * A secret the agent asked for in this chat (OP-SEC-5, OP-UI-8): what and why, and while it
 * is pending a password field to answer; the value goes to the API once and is never shown.
 */
export function SecretRequestCard(props: { runId: string; seq: number }) {
  const request = useLoad(async () => {
    const list = await unwrap(api.GET("/api/runs/{id}/secret-requests", { params: { path: { id: props.runId } } }));
    return list.data.find((r) => r.seq === props.seq) ?? null;
  }, [props.runId, props.seq]);
  const [value, setValue] = useState("");
  const form = useSubmit();

  if (request.error) return <Notice kind="error">Could not load the secret request: {request.error}</Notice>;
  const r = request.data;
  if (!r) return null;
  const prefix = `secret-request-${props.seq}`;

  const answer = (event: Event) => {
    event.preventDefault();
    void form.run(async () => {
      const answered: SecretRequest = await unwrap(
        api.POST("/api/runs/{id}/secret-requests/{seq}", { params: { path: { id: props.runId, seq: props.seq } }, body: { value } }),
      );
      // The field is emptied at once: the value is never kept by the page.
      setValue("");
      request.setData(answered);
    });
  };

  return (
    <form class="card secret-request" onSubmit={answer} aria-labelledby={`${prefix}-title`} data-secret-request={r.name} data-status={r.status}>
      <p id={`${prefix}-title`}>
        <span class="badge">Secret request</span> The agent asks for <code>{r.name}</code>
        {r.description ? ` (${r.description})` : ""}: {r.reason}
      </p>
      {r.status === "answered" ? (
        <Notice kind="success">
          Saved as the secret <code>{r.name}</code>, granted to this agent. It reaches the agent from its next generation.
        </Notice>
      ) : (
        <>
          {form.failure && <Notice kind="error">{form.failure}</Notice>}
          <Field name="value" label={`Value of ${r.name}`} error={form.errors.value} prefix={prefix} hint="Stored encrypted; never shown again.">
            {(a) => (
              <input {...a} type="password" autocomplete="new-password" value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
            )}
          </Field>
          <button type="submit" class="primary" disabled={form.busy || !value}>
            Save secret
          </button>
        </>
      )}
    </form>
  );
}
