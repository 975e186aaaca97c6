import { useState } from "preact/hooks";
import { Notice } from "../components/notice";
import { ApiError, api, describe, unwrap } from "../lib/api";
import { setToken } from "../lib/auth";

/** Sign-in with an operator token, checked against the API before it is kept. */
export function SignInView(props: { notice: string | null; onSignedIn: (token: string) => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) {
      setError("Enter your operator token.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.GET("/api/organisation", { headers: { authorization: `Bearer ${token}` } }));
      setToken(token);
      props.onSignedIn(token);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        setError("That token was not accepted. Check that you copied the whole operator token (it starts with gld_) and try again.");
      } else {
        setError(`Could not sign in: ${describe(e)}`);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <h1>Guilds console</h1>
      <form onSubmit={submit} class="card" aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        {props.notice && <Notice kind="info">{props.notice}</Notice>}
        <div class={`field${error ? " has-error" : ""}`}>
          <label for="token">Operator token</label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={value}
            placeholder="gld_…"
            aria-invalid={Boolean(error)}
            aria-describedby={error ? "token-error" : "token-hint"}
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
          />
          <small id="token-hint" class="hint">
            <code>npm start</code> prints it. It is kept for this browser tab only.
          </small>
          {error && (
            <small id="token-error" class="field-error" role="alert">
              {error}
            </small>
          )}
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
