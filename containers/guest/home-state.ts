/**
 * What the guest knows of its home between requests: whether the platform's restore has
 * happened (a restored archive, or word that there was none to restore) and the archive cap
 * the platform last sent. The save on shutdown needs both: a box stopped before its restore
 * finished holds an empty or partial home, and pushing that would replace the good one.
 */

/** The request's `max_bytes`, bounded by the guest's own ceiling; the ceiling when absent or invalid. */
export function archiveCap(url: URL, ceiling: number): number {
  const raw = url.searchParams.get("max_bytes");
  const asked = raw !== null && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isSafeInteger(asked) ? Math.min(asked, ceiling) : ceiling;
}

export class HomeState {
  #ready = false;
  #cap: number;

  constructor(ceiling: number) {
    this.#cap = ceiling;
  }

  /** The home is as the platform wants it: the shutdown save may now replace the saved one. */
  markReady(cap: number): void {
    this.#ready = true;
    this.#cap = cap;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The cap the platform sent last (the restore's), or the ceiling. */
  get cap(): number {
    return this.#cap;
  }
}
