import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "../components/link";
import { Notice } from "../components/notice";
import { ApiError, api, describe, unwrap } from "../lib/api";
import { readSetup, takeReturn } from "../lib/github-setup";
import { navigate } from "../lib/router";

/**
 * The GitHub App's setup URL (OP-REPO-6): GitHub opens it after an install with the
 * installation id, a code and the claim's state, which are posted to the API once. A claim
 * accepted (or an installation this organisation already holds, as after adding repositories
 * on GitHub) goes back to the page that started it; a refusal is shown with GitHub's and the
 * platform's reason.
 */
export function GitHubSetupView() {
  const [failure, setFailure] = useState<string | null>(null);
  const setup = readSetup(location.search);
  const sent = useRef(false);
  useEffect(() => {
    if (setup.kind !== "claim" || sent.current) return;
    sent.current = true;
    unwrap(api.POST("/api/github/connections", { body: setup.body }))
      .catch((error: unknown) => {
        if (!(error instanceof ApiError && error.code === "github_connection.exists")) throw error;
      })
      .then(
        () => navigate(takeReturn(), { replace: true }),
        (error: unknown) => setFailure(describe(error)),
      );
  }, []);
  return (
    <section>
      <h1>Connecting GitHub</h1>
      {setup.kind === "claim" && !failure && <p aria-busy="true">Claiming installation {setup.body.installation_id}…</p>}
      {setup.kind === "requested" && (
        <Notice kind="info">GitHub asked the account's owners to approve the installation. Once they have, connect GitHub again.</Notice>
      )}
      {setup.kind === "incomplete" && (
        <Notice kind="error">
          GitHub's redirect lacks {setup.missing.join(", ")}. The App must request user authorization during installation and send the state back; connect again
          from a guild's Repositories page.
        </Notice>
      )}
      {failure && <Notice kind="error">The installation was not connected: {failure}</Notice>}
      {(failure || setup.kind !== "claim") && (
        <p>
          <Link href="/guilds">Back to the guilds</Link>
        </p>
      )}
    </section>
  );
}
