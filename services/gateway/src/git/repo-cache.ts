/**
 * A short memory of the repositories git fetches from, so one `git clone` or `git fetch` asks repos once
 * instead of once per HTTP request: smart HTTP takes three (GET info/refs, POST ls-refs, POST fetch), each
 * of which would otherwise load the repository and the caller's permission (GetRepository) again.
 *
 * Only what a fetch needs is kept: the repository as one viewer sees it, for `upload-pack` requests. Pushes
 * always ask repos; so do names that are not found or were renamed (those answers are never kept).
 *
 * API routes that opt in (`repo.reuse: 'anonymous'`, e.g. the issue list) share it for anonymous callers only,
 * and only when the gateway listens to events (app.ts), so every change that matters ends the entry as soon as its
 * event arrives.
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
import { ExpiringMap } from '../cache/expiring-map';

export interface GitRepoCacheOptions {
  /** How long an entry is answered. Default 2000 ms. */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first. Default 1000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export const DEFAULT_GIT_REPO_CACHE_TTL_MS = 2000;

export class GitRepoCache extends ExpiringMap<string, RepoContext, RepoLookup | undefined> {
  constructor(options: GitRepoCacheOptions = {}) {
    super({ ttlMs: options.ttlMs ?? DEFAULT_GIT_REPO_CACHE_TTL_MS, maxEntries: options.maxEntries ?? 1000, now: options.now });
  }

  /** Everything that makes repos answer differently: who asks (as GetRepository's viewer), and the name asked for. */
  static key(viewer: Actor | undefined, owner: string, name: string): string {
    return JSON.stringify([viewer?.userId ?? 0, viewer?.isAdmin === true, viewer?.isRestricted === true, owner, name]);
  }

  /**
   * The repository under `key`: from memory while its entry lives, else from the load of `key` under way, else
   * from `load`, whose answer is kept when it is a repository (not found, or moved, is answered but not kept)
   * and no event came while it loaded.
   */
  lookUp(key: string, load: () => Promise<RepoLookup | undefined>): Promise<RepoLookup | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve({ kind: 'found', value: cached });
    const underWay = this.underWay(key);
    if (underWay !== undefined) return underWay;
    const generation = this.generation;
    const loading = load().then((loaded) => {
      if (loaded?.kind === 'found' && generation === this.generation) this.set(key, loaded.value);
      return loaded;
    });
    this.track(key, loading);
    return loading;
  }
}
