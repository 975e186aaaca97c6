/**
 * Hands out one ticket per load; only the newest ticket's answer may land. Starting a load
 * aborts the one before it, and an answer that comes back anyway (a server that had already
 * replied) is dropped, so a slow earlier load never overwrites a newer choice.
 */
export class Latest {
  #seq = 0;
  #controller: AbortController | null = null;

  /** A new ticket: its signal aborts when the next ticket is taken; `current()` stays true only until then. */
  begin(): { signal: AbortSignal; current: () => boolean } {
    this.#controller?.abort();
    const controller = new AbortController();
    this.#controller = controller;
    const seq = ++this.#seq;
    return { signal: controller.signal, current: () => seq === this.#seq };
  }

  /** Ends every ticket (the view is gone): nothing handed out before may land. */
  cancel(): void {
    this.#controller?.abort();
    this.#controller = null;
    this.#seq++;
  }
}
