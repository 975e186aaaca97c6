import type { ComponentChildren } from "preact";
import { when } from "../lib/format";
import { parseGroupWake } from "../lib/group-wake";

/**
 * The user row that opens a group run, read for the operator: the chat's latest message
 * and whether this agent was tagged, how far the chat was delivered, and the text as
 * the model got it. Text that does not parse shows as it is.
 */
export function GroupWake(props: { head: ComponentChildren; text: string; throughSeq: unknown }) {
  const wake = parseGroupWake(props.text);
  const through = typeof props.throughSeq === "number" ? props.throughSeq : null;
  if (!wake)
    return (
      <>
        {props.head}
        <div class="text">{props.text}</div>
      </>
    );
  const latest = wake.latest;
  return (
    <>
      {props.head}
      <div class="group-wake" data-testid="group-wake">
        {latest ? (
          <>
            <p class="wake-line">
              Latest message
              {latest.seq !== null && (
                <>
                  {" "}
                  <strong>#{latest.seq}</strong>
                </>
              )}{" "}
              from <strong>{latest.author}</strong>
              {latest.at && (
                <>
                  {" "}
                  · <time dateTime={latest.at}>{when(latest.at)}</time>
                </>
              )}
            </p>
            <blockquote class="text">{latest.text || <span class="muted">(no text)</span>}</blockquote>
          </>
        ) : (
          <p class="muted">No latest message in this delivery.</p>
        )}
        <p class="wake-line">
          {wake.tagged === true && (
            <span class="badge tagged" data-testid="wake-tagged">
              Tagged: this agent was mentioned
            </span>
          )}
          {wake.tagged === false && (
            <span class="badge" data-testid="wake-tagged">
              Not tagged
            </span>
          )}
          {through !== null && <span class="muted"> Delivered through seq {through}.</span>}
        </p>
        <details class="wake-raw">
          <summary>As the model read it</summary>
          <pre>{props.text}</pre>
        </details>
      </div>
    </>
  );
}
