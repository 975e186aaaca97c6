/**
 * Redaction of streamed text (the model's content and reasoning deltas): every delta passes
 * the run redaction set before it is published, and a tail that may be the start of a secret
 * waits for the next delta, so a value split across deltas is caught whole (ERR-011).
 */
import type { Redactor } from "./redaction";

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
