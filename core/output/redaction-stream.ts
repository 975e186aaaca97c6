/**
 * Redaction of streamed text (the model's content and reasoning deltas): every delta passes
 * the run redaction set before it is published, and a tail that may be the start of a secret
 * waits for the next delta, so a value split across deltas is caught whole (ERR-011).
 */
import type { Redactor } from "./redaction";

export type DeltaKind = "content" | "reasoning";

/**
 * A model call's deltas as the run's stream carries them: content and reasoning each
 * through its own redacting stream; `flush` publishes what each still holds once the call
 * ends (or fails).
 *
 * @example
 * const deltas = redactedDeltas(() => deps.redactor, (kind, text) => publish("delta", { kind, text }));
 * await callModel({ ..., onDelta: deltas.push }).finally(deltas.flush);
 */
export function redactedDeltas(redactor: () => Redactor, publish: (kind: DeltaKind, text: string) => void) {
  const streams = { content: new RedactingStream(redactor), reasoning: new RedactingStream(redactor) };
  const send = (kind: DeltaKind, text: string) => {
    if (text) publish(kind, text);
  };
  return {
    push: (kind: DeltaKind, text: string) => send(kind, streams[kind].push(text)),
    flush: () => {
      send("reasoning", streams.reasoning.flush());
      send("content", streams.content.flush());
    },
  };
}

/**
 * One stream's redaction. The redactor is read on every push, so values joining the set
 * mid-stream apply from the next delta on.
 *
 * @example
 * const stream = new RedactingStream(() => redactor);
 * publish(stream.push("token: s3cr")); // "token: " (the rest may be a secret's start)
 * publish(stream.push("3t-value\n")); // "[REDACTED:K]\n"
 * publish(stream.flush()); // ""
 */
export class RedactingStream {
  #held = "";

  constructor(private readonly redactor: () => Redactor) {}

  /** What may be shown of the stream so far, redacted; "" while everything waits. */
  push(delta: string): string {
    const { emit, held } = this.redactor().redactChunk(this.#held + delta);
    this.#held = held;
    return emit;
  }

  /** The end of the stream: whatever was held, redacted. */
  flush(): string {
    const rest = this.#held;
    this.#held = "";
    return rest && this.redactor().redact(rest);
  }
}
