import { useState } from "preact/hooks";
import { api, type GitHubDelivery, unwrap } from "../lib/api";
import { when } from "../lib/format";
import { useLoad } from "../lib/use-load";
import { Notice } from "./notice";

const PAGE = 50;

/**
 * The organisation's GitHub webhook deliveries, newest first (issue 33): what each came to,
 * and the URL to paste into the App's webhook settings. Deliveries pile up without bound, so
 * the list reads a page at a time ("Load more").
 */
export function WebhookDeliveries() {
  const first = useLoad(() => unwrap(api.GET("/api/github/deliveries", { params: { query: { limit: PAGE } } })), []);
  const [more, setMore] = useState<{ data: GitHubDelivery[]; next: string | null } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = [...(first.data?.data ?? []), ...(more?.data ?? [])];
  const next = more ? more.next : (first.data?.next_cursor ?? null);
  const loadMore = async () => {
    if (!next) return;
    setBusy(true);
    setFailure(null);
    try {
      const page = await unwrap(api.GET("/api/github/deliveries", { params: { query: { limit: PAGE, cursor: next } } }));
      setMore({ data: [...(more?.data ?? []), ...page.data], next: page.next_cursor });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  const refresh = () => {
    setMore(null);
    void first.reload();
  };
  return (
    <section aria-labelledby="webhook-deliveries">
      <h2 id="webhook-deliveries">Webhook deliveries</h2>
      <p class="muted">
        What GitHub sent about the connected installations, and what came of it. The App's webhook URL is{" "}
        <code data-webhook-url>{`${location.origin}/api/github/webhooks`}</code>, with the webhook secret the platform's operator set (GITHUB_WEBHOOK_SECRET).
      </p>
      {first.error && <Notice kind="error">Could not load the webhook deliveries: {first.error}</Notice>}
      {failure && <Notice kind="error">Could not load more deliveries: {failure}</Notice>}
      {first.data && rows.length === 0 && <p class="muted">No delivery yet.</p>}
      {rows.length > 0 && (
        <table class="list" aria-label="Webhook deliveries">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Repository</th>
              <th scope="col">Sender</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id} data-delivery={d.delivery_id}>
                <td>
                  <code>{d.action ? `${d.event} · ${d.action}` : d.event}</code>
                </td>
                <td>{d.repository ? <code>{d.repository}</code> : <span class="muted">–</span>}</td>
                <td>{d.sender ?? <span class="muted">–</span>}</td>
                <td>
                  <span class="badge">{d.outcome}</span>
                </td>
                <td>{d.error ?? d.detail ?? ""}</td>
                <td>{when(d.received_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="inline-form">
        <button type="button" onClick={refresh} disabled={first.loading}>
          Refresh
        </button>
        {next && (
          <button type="button" onClick={() => void loadMore()} disabled={busy}>
            Load more
          </button>
        )}
      </div>
    </section>
  );
}
