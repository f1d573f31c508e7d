/**
 * A short memory of the repositories git fetches from, so one `git clone` or `git fetch` asks repos once
 * instead of once per HTTP request: smart HTTP takes three (GET info/refs, POST ls-refs, POST fetch), each
 * of which would otherwise load the repository and the caller's permission (GetRepository) again.
 *
 * Only what a fetch needs is kept: the repository as one viewer sees it, for `upload-pack` requests. Pushes
 * always ask repos; so do names that are not found or were renamed (those answers are never kept).
 *
 * Staleness is bounded by the TTL (2 s by default): an entry is answered for at most that long after repos
 * gave it. Events end it sooner: the gateway forgets every entry on any change to a repository,
 * collaborator, organization, team or user (repo-cache-invalidation.ts), so an access change usually takes
 * effect as soon as its event arrives, and at the latest a TTL after it was made. A lookup that was under way
 * when an event arrived is not kept, so it cannot bring back what the event removed.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { RepoLookup } from '../api/repo-context';
import type { RepoContext } from '../api/types';

export interface GitRepoCacheOptions {
  /** How long an entry is answered. Default 2000 ms. */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first. Default 1000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
  value: RepoContext;
  expiresAt: number;
}

export const DEFAULT_GIT_REPO_CACHE_TTL_MS = 2000;

export class GitRepoCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Bumped by every clear(): a lookup started under an older generation is not kept. */
  private generation = 0;

  constructor(options: GitRepoCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_GIT_REPO_CACHE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** Everything that makes repos answer differently: who asks (as GetRepository's viewer), and the name asked for. */
  static key(viewer: Actor | undefined, owner: string, name: string): string {
    return JSON.stringify([viewer?.userId ?? 0, viewer?.isAdmin === true, viewer?.isRestricted === true, owner, name]);
  }

  /**
   * The repository under `key`: from memory while its entry lives, else from `load`, whose answer is kept when
   * it is a repository (not found, or moved, is answered but not kept) and no event came while it loaded.
   */
  async lookUp(key: string, load: () => Promise<RepoLookup | undefined>): Promise<RepoLookup | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return { kind: 'found', value: cached };
    const generation = this.generation;
    const loaded = await load();
    if (loaded?.kind === 'found' && generation === this.generation) this.set(key, loaded.value);
    return loaded;
  }

  get(key: string): RepoContext | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: RepoContext): void {
    const now = this.now();
    this.entries.delete(key); // re-inserted last: Map order is expiry order (one TTL for all)
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.expiresAt > now) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets everything, including what lookups under way would bring back. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
