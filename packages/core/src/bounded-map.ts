/** A Map that forgets its oldest entry beyond `maxEntries`, so a flood of distinct keys cannot grow it. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  /** Sets `key` as the newest entry, dropping the oldest one when over the bound. */
  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    if (this.size > this.maxEntries) this.delete(this.keys().next().value as K);
    return this;
  }
}
