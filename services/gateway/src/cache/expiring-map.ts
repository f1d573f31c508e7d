/**
 * The gateway's short memories (auth/token-cache.ts, git/repo-cache.ts, cache/public-users.ts): a Map whose entries live one TTL,
 * bounded in size (the oldest go first), with a generation that every forgetting bumps, so a load that was
 * under way when an event arrived can tell it must not keep what it brings back.
 *
 * Loads under way are shared (`underWay`, `track`): when an entry expires under load, the requests that miss it
 * meanwhile wait for the one call already made instead of each making their own (a burst of identical calls to
 * a service that, between expiries, sees none). Forgetting a key also stops sharing its load, so a request made
 * after an event never gets an answer asked for before it.
 */

export interface ExpiringMapOptions {
  /** How long an entry is answered. */
  ttlMs: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/** `L`: what a load of one key answers (the value, or more, e.g. "not found"). */
export class ExpiringMap<K, V, L = V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly pending = new Map<K, Promise<L>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private generationCount = 0;

  constructor(options: ExpiringMapOptions) {
    this.ttlMs = options.ttlMs;
    this.maxEntries = options.maxEntries;
    this.now = options.now ?? Date.now;
  }

  /** Bumped by every forget() and clear(): compare before and after a load to know whether to keep it. */
  get generation(): number {
    return this.generationCount;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    const now = this.now();
    this.entries.delete(key); // re-inserted last: Map order is expiry order (one TTL for all)
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.expiresAt > now) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets one entry, and what loads under way would bring back. */
  forget(key: K): void {
    this.generationCount++;
    this.entries.delete(key);
    this.pending.delete(key);
  }

  /** Forgets every entry whose value matches (and every load under way, which may bring such a value back). */
  forgetWhere(match: (value: V) => boolean): void {
    this.generationCount++;
    for (const [key, entry] of this.entries) if (match(entry.value)) this.entries.delete(key);
    this.pending.clear();
  }

  /** Forgets everything, including what loads under way would bring back. */
  clear(): void {
    this.generationCount++;
    this.entries.clear();
    this.pending.clear();
  }

  /** The load of `key` under way, when one began since `key` was last forgotten. */
  protected underWay(key: K): Promise<L> | undefined {
    return this.pending.get(key);
  }

  /** Shares `loading` with whoever asks for `key` until it settles (its failure too: theirs is the same question). */
  protected track(key: K, loading: Promise<L>): void {
    this.pending.set(key, loading);
    const settled = () => {
      if (this.pending.get(key) === loading) this.pending.delete(key);
    };
    loading.then(settled, settled);
  }

  get size(): number {
    return this.entries.size;
  }
}
