/**
 * The public user cache (cache/public-users.ts): users as an anonymous caller sees them, kept for a TTL, bounded,
 * only individuals, never what a signed-in viewer was shown, and forgotten on accounts' user events
 * (auth/invalidation.ts) — including what a load under way when the event came would bring back.
 */
import { encodeEvent } from '@cairn/bus';
import { type BatchGetUsersRequest, User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import { Permission, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { Logger } from '@cairn/log';
import { toApiIssues } from '@cairn/gitea-json';
import type { RepoLookup } from '../src/api/repo-context';
import type { GatewayServices } from '../src/api/types';
import { subscribeTokenInvalidation } from '../src/auth/invalidation';
import { TokenCache } from '../src/auth/token-cache';
import { PublicUserCache } from '../src/cache/public-users';
import { GitRepoCache } from '../src/git/repo-cache';
import { testConfig } from './support/config';
import { FakeBroadcastBus } from './support/fake-bus';
import { unusedClient } from './support/unused-client';

const user = (id: number, login: string, type = 0) => User.fromPartial({ id, login, type, created: new Date(0), visibility: 'public' });

describe('PublicUserCache', () => {
  it('asks only for the users it does not hold, and keeps them for the TTL', async () => {
    let now = 1000;
    const cache = new PublicUserCache({ ttlMs: 100, now: () => now });
    const asked: number[][] = [];
    const load = async (ids: number[]) => {
      asked.push(ids);
      return ids.map((id) => user(id, `u${id}`));
    };
    expect([...(await cache.usersByIds([1, 2, 1], load)).keys()].sort()).toEqual([1, 2]);
    expect([...(await cache.usersByIds([2, 3], load)).keys()].sort()).toEqual([2, 3]);
    expect(asked).toEqual([[1, 2], [3]]);
    now += 100;
    await cache.usersByIds([1], load);
    expect(asked).toEqual([[1, 2], [3], [1]]);
  });

  it('keeps neither organizations nor users that were not found, and at most maxEntries', async () => {
    const cache = new PublicUserCache({ maxEntries: 2 });
    const load = async (ids: number[]) => ids.filter((id) => id !== 9).map((id) => user(id, `u${id}`, id === 8 ? 1 : 0));
    const found = await cache.usersByIds([8, 9, 1], load);
    expect([...found.keys()].sort()).toEqual([1, 8]);
    expect(cache.get(8)).toBeUndefined();
    expect(cache.get(9)).toBeUndefined();
    await cache.usersByIds([2, 3], load);
    expect(cache.size).toBe(2);
    expect(cache.get(1)).toBeUndefined();
  });

  it('does not keep a load that an eviction overtook', async () => {
    const cache = new PublicUserCache();
    await cache.usersByIds([1], async () => {
      cache.forget(1); // the event arrived while accounts answered
      return [user(1, 'old')];
    });
    expect(cache.size).toBe(0);
  });
});

describe('loads under way are shared', () => {
  /** A load answered when the test says so. */
  function deferred<T>() {
    let resolve!: (value: T) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  }

  it('asks accounts once per user for requests that miss it at the same time, and again after an event', async () => {
    const cache = new PublicUserCache();
    const asked: number[][] = [];
    const answers: Array<ReturnType<typeof deferred<User[]>>> = [];
    const load = (ids: number[]) => {
      asked.push(ids);
      const answer = deferred<User[]>();
      answers.push(answer);
      return answer.promise;
    };
    const first = cache.usersByIds([1, 2], load);
    const second = cache.usersByIds([2, 3], load);
    expect(asked).toEqual([[1, 2], [3]]);
    cache.forget(1); // an event: a request made now must not get the answer asked for before it
    const third = cache.usersByIds([1], load);
    expect(asked).toEqual([[1, 2], [3], [1]]);
    answers[0].resolve([user(1, 'before'), user(2, 'u2')]);
    answers[1].resolve([user(3, 'u3')]);
    answers[2].resolve([user(1, 'after')]);
    expect([...(await first).values()].map((u) => u.login)).toEqual(['before', 'u2']);
    expect([...(await second).values()].map((u) => u.login).sort()).toEqual(['u2', 'u3']);
    expect((await third).get(1)?.login).toBe('after');
    // The load overtaken by the event kept nothing; the one after it did.
    expect(cache.get(1)?.login).toBe('after');
  });

  it('asks repos once for lookups of one key at the same time, shares a failure without keeping it', async () => {
    const cache = new GitRepoCache();
    let loads = 0;
    const failing = deferred<RepoLookup | undefined>();
    const load = () => {
      loads++;
      return failing.promise;
    };
    const key = GitRepoCache.key(undefined, 'o', 'r');
    const both = Promise.allSettled([cache.lookUp(key, load), cache.lookUp(key, load)]);
    failing.reject(new Error('unavailable'));
    expect((await both).map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(loads).toBe(1);
    const context = { repository: Repository.fromPartial({ id: 1 }), permission: Permission.fromPartial({ accessMode: 'read' }) };
    const found = await cache.lookUp(key, async () => ({ kind: 'found', value: context }));
    expect(found).toEqual({ kind: 'found', value: context });
    expect(cache.get(key)).toBe(context);
  });
});

describe('the public user cache in the issue list', () => {
  const config = testConfig();
  const repository = Repository.fromPartial({ id: 1, ownerId: 50, ownerName: 'owner', name: 'repo' });
  const issue = (index: number, posterId: number, assigneeIds: number[] = []) =>
    ({ id: index, repoId: 1, index, posterId, assigneeIds, labels: [], title: '', body: '', ref: '', originalAuthor: '', created: new Date(0), updated: new Date(0) }) as unknown as Issue;

  function services(cache: PublicUserCache, asked: BatchGetUsersRequest[]): GatewayServices {
    const users = {
      batchGetUsers: async (request: BatchGetUsersRequest) => {
        asked.push(request);
        return { users: request.ids.map((id) => user(id, `u${id}`)) };
      },
    };
    const attachments = { batchListAttachments: async () => ({ attachments: [] }) };
    return { config, clients: { users, attachments }, logger: unusedClient('logger'), tokenCache: unusedClient('tokenCache'), publicUsers: cache } as unknown as GatewayServices;
  }

  it('answers anonymous lists and every list’s assignees from memory, never a signed-in viewer’s posters', async () => {
    const asked: BatchGetUsersRequest[] = [];
    const gw = services(new PublicUserCache(), asked);
    const repos = new Map([[1, repository]]);
    const list = [issue(1, 5, [6]), issue(2, 5)];
    const first = await toApiIssues(gw, undefined, list, repos);
    expect(await toApiIssues(gw, undefined, list, repos)).toEqual(first);
    expect(asked.map((request) => request.ids)).toEqual([[5, 6]]);
    const viewer = { userId: 6, isAdmin: false, isRestricted: false };
    await toApiIssues(gw, viewer, list, repos);
    await toApiIssues(gw, viewer, list, repos);
    // Posters shaped for the viewer each time; the assignees (shaped as anonymous) from memory.
    expect(asked.slice(1)).toEqual([{ ids: [5], viewer }, { ids: [5], viewer }]);
  });
});

describe('public user cache invalidation', () => {
  const logger = { warn: () => undefined } as unknown as Logger;

  it('forgets a user that accounts says was updated, renamed or deleted, and everyone on an unreadable event', async () => {
    const bus = new FakeBroadcastBus();
    const users = new PublicUserCache();
    const subscription = await subscribeTokenInvalidation({ bus, cache: new TokenCache(), users, logger });
    try {
      const fill = () => users.usersByIds([1, 2, 3], async (ids) => ids.map((id) => user(id, `u${id}`)));
      await fill();
      await bus.publishEvent('cairn.user.updated', encodeEvent(UserUpdated, { meta: undefined, user: user(1, 'u1'), changed: ['visibility'], version: 0 }));
      expect([users.get(1), users.get(2)?.id]).toEqual([undefined, 2]);
      await bus.publishEvent('cairn.user.renamed', encodeEvent(UserRenamed, { meta: undefined, user: user(2, 'v2'), oldLogin: 'u2', version: 0 }));
      expect(users.get(2)).toBeUndefined();
      await bus.publishEvent('cairn.user.deleted', encodeEvent(UserDeleted, { meta: undefined, userId: 3, login: 'u3', purge: false }));
      expect(users.size).toBe(0);
      await fill();
      await bus.publishEvent('cairn.user.updated', encodeEvent(UserUpdated, { meta: undefined, user: undefined, changed: [], version: 0 }));
      expect(users.size).toBe(0);
      await fill();
      await bus.publishEvent('cairn.user.updated', new TextEncoder().encode('not an event'));
      expect(users.size).toBe(0);
    } finally {
      await subscription.stop();
    }
  });
});
