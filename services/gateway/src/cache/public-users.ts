/**
 * A short memory of users as an anonymous caller sees them (accounts' BatchGetUsers with no viewer), so an issue
 * list does not ask accounts for the same posters and assignees on every request.
 *
 * Only that shaping is kept because it is the one that holds nothing private: accounts blanks the account details
 * and answers the placeholder e-mail for every user (domain/user-view.ts), so an entry is the user's public profile
 * and nothing a later change could make secret. Users shaped for a signed-in viewer are never kept.
 *
 * Only individual users are kept (organizations change through other events). Users that are not found (deleted:
 * Gitea's Ghost) are not kept, so they are asked again. Staleness is bounded by the TTL (10 s by default); events
 * end it sooner: an updated, renamed or deleted user is forgotten as soon as accounts' event arrives
 * (auth/invalidation.ts, with the token cache), and a load under way then is not kept. The gateway keeps one only
 * when it listens to events (app.ts).
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { ExpiringMap } from './expiring-map';

export interface PublicUserCacheOptions {
  /** How long an entry is answered. Default 10 s. */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first. Default 10 000. */
  maxEntries?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** accounts' `users.type` of an individual user. */
const INDIVIDUAL = 0;

export class PublicUserCache extends ExpiringMap<number, User, User | undefined> {
  constructor(options: PublicUserCacheOptions = {}) {
    super({ ttlMs: options.ttlMs ?? 10_000, maxEntries: options.maxEntries ?? 10_000, now: options.now });
  }

  /**
   * The users of `ids` that exist, by id: from memory where an entry lives, from loads under way for others, the
   * rest with one `load` (BatchGetUsers as an anonymous caller), whose individual users are kept unless an event
   * came while it loaded.
   */
  async usersByIds(ids: Iterable<number>, load: (missing: number[]) => Promise<readonly User[]>): Promise<Map<number, User>> {
    const found = new Map<number, User>();
    const waiting: Array<Promise<User | undefined>> = [];
    const missing = new Set<number>();
    for (const id of ids) {
      if (found.has(id) || missing.has(id)) continue;
      const user = this.get(id);
      if (user !== undefined) {
        found.set(id, user);
        continue;
      }
      const underWay = this.underWay(id);
      if (underWay === undefined) missing.add(id);
      else waiting.push(underWay);
    }
    if (missing.size > 0) waiting.push(...this.loadMissing([...missing], load));
    for (const user of await Promise.all(waiting)) if (user !== undefined) found.set(user.id, user);
    return found;
  }

  /** One load for `missing`, shared per id with whoever asks for them until it answers. */
  private loadMissing(missing: number[], load: (missing: number[]) => Promise<readonly User[]>): Array<Promise<User | undefined>> {
    const generation = this.generation;
    const loading = load(missing).then((users) => {
      const byId = new Map(users.map((user) => [user.id, user]));
      if (generation === this.generation) for (const user of users) if (user.type === INDIVIDUAL) this.set(user.id, user);
      return byId;
    });
    return missing.map((id) => {
      const one = loading.then((byId) => byId.get(id));
      this.track(id, one);
      return one;
    });
  }
}
