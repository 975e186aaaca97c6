/**
 * A Map that keeps at most `max` entries: setting a key makes it the newest, and past the
 * bound the oldest set goes first (a Map iterates in insertion order). For the isolate's
 * small caches, which must not grow with the number of tenants an isolate serves.
 *
 * @example const seen = new BoundedMap<string, string>(2); seen.set("a", "1").set("b", "2").set("c", "3"); // "a" is gone
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.max) super.delete(this.keys().next().value as K);
    return this;
  }
}
