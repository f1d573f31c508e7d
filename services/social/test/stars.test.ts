/**
 * StarService against a real database: starring and unstarring are idempotent and move the repository's
 * counter exactly once (also when the same star races itself), each change publishes one event through the
 * outbox, and the lists page and order as the contract says.
 */
import { StarAdded, StarRemoved } from '@cairn/proto/cairn/social/v1/events';
import { CairnError, Code } from '@cairn/rpc';
import { decoded, startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});

afterAll(async () => {
  await h?.stop();
});

async function starsOf(repoId: number): Promise<number> {
  const { counters } = await h.stars.getRepoCounters({ repoIds: [repoId] });
  return counters[0].stars;
}

describe('Star and Unstar', () => {
  it('counts a star once however often it is given, and publishes one StarAdded', async () => {
    const before = await h.lastSeq();
    await h.stars.star({ userId: 11, repoId: 101 });
    await h.stars.star({ userId: 11, repoId: 101 });
    expect(await starsOf(101)).toBe(1);
    expect(await h.stars.isStarred({ userId: 11, repoId: 101 })).toEqual({ starred: true });

    const events = await h.outbox(before);
    expect(events.map((event) => event.subject)).toEqual(['cairn.star.created']);
    const event = decoded(StarAdded, events[0]);
    expect(event).toMatchObject({ userId: 11, repoId: 101, starsCount: 1, meta: { eventId: events[0].id, actorId: 11, repoId: 101 } });
  });

  it('uncounts a star once however often it is taken back, and publishes one StarRemoved', async () => {
    await h.stars.star({ userId: 12, repoId: 102 });
    await h.stars.star({ userId: 13, repoId: 102 });
    const before = await h.lastSeq();
    await h.stars.unstar({ userId: 12, repoId: 102 });
    await h.stars.unstar({ userId: 12, repoId: 102 });
    expect(await starsOf(102)).toBe(1);
    expect(await h.stars.isStarred({ userId: 12, repoId: 102 })).toEqual({ starred: false });

    const events = await h.outbox(before);
    expect(events.map((event) => event.subject)).toEqual(['cairn.star.deleted']);
    expect(decoded(StarRemoved, events[0])).toMatchObject({ userId: 12, repoId: 102, starsCount: 1 });
  });

  it('unstarring what was never starred changes and publishes nothing', async () => {
    const before = await h.lastSeq();
    await h.stars.unstar({ userId: 14, repoId: 103 });
    expect(await starsOf(103)).toBe(0);
    expect(await h.outbox(before)).toEqual([]);
  });

  it('counts one star when the same star is given many times at once', async () => {
    await Promise.all(Array.from({ length: 12 }, () => h.stars.star({ userId: 15, repoId: 104 })));
    expect(await starsOf(104)).toBe(1);
    await Promise.all(Array.from({ length: 12 }, () => h.stars.unstar({ userId: 15, repoId: 104 })));
    expect(await starsOf(104)).toBe(0);
  });

  it('counts many users starring at once', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => h.stars.star({ userId: 1000 + i, repoId: 105 })));
    expect(await starsOf(105)).toBe(20);
    const { rows } = await h.sql.query<{ count: string }>('SELECT count(*) AS count FROM stars WHERE repo_id = 105');
    expect(Number(rows[0].count)).toBe(20);
  });

  it.each([
    ['a zero user id', { userId: 0, repoId: 1 }, 'user_id_invalid'],
    ['a negative repository id', { userId: 1, repoId: -5 }, 'repo_id_invalid'],
  ])('refuses %s as INVALID_ARGUMENT and stores nothing', async (_, request, reason) => {
    const before = await h.lastSeq();
    for (const call of [h.stars.star, h.stars.unstar, h.stars.isStarred]) {
      const error = await call(request).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(CairnError);
      expect(error).toMatchObject({ code: Code.INVALID_ARGUMENT, reason });
    }
    expect(await h.outbox(before)).toEqual([]);
  });
});

describe('lists and counters', () => {
  const repoId = 200;
  const users = [21, 22, 23, 24, 25];

  beforeAll(async () => {
    // One at a time, so "oldest first" has an order to show.
    for (const userId of users) await h.stars.star({ userId, repoId });
  });

  it('pages through stargazers oldest first, with the total of every page', async () => {
    expect(await h.stars.listStargazers({ repoId, page: { page: 1, limit: 2 } })).toEqual({ userIds: [21, 22], total: 5 });
    expect(await h.stars.listStargazers({ repoId, page: { page: 3, limit: 2 } })).toEqual({ userIds: [25], total: 5 });
    expect(await h.stars.listStargazers({ repoId, page: { page: 4, limit: 2 } })).toEqual({ userIds: [], total: 5 });
    // No page: the whole list.
    expect(await h.stars.listStargazers({ repoId })).toEqual({ userIds: users, total: 5 });
  });

  it('answers an unstarred repository with no stargazers', async () => {
    expect(await h.stars.listStargazers({ repoId: 999_999, page: { page: 1, limit: 10 } })).toEqual({ userIds: [], total: 0 });
  });

  it('answers every repository a user starred, newest first', async () => {
    for (const id of [301, 302, 303]) await h.stars.star({ userId: 31, repoId: id });
    expect(await h.stars.listStarredRepos({ userId: 31 })).toEqual({ repoIds: [303, 302, 301] });
    await h.stars.unstar({ userId: 31, repoId: 302 });
    expect(await h.stars.listStarredRepos({ userId: 31 })).toEqual({ repoIds: [303, 301] });
    expect(await h.stars.listStarredRepos({ userId: 32 })).toEqual({ repoIds: [] });
  });

  it("answers several users' starred repositories in one call, each user once, those without stars left out", async () => {
    for (const id of [401, 402]) await h.stars.star({ userId: 41, repoId: id });
    await h.stars.star({ userId: 42, repoId: 401 });
    const { users } = await h.stars.batchListStarredRepos({ userIds: [42, 41, 43, 41] });
    expect([...users].sort((a, b) => a.userId - b.userId)).toEqual([
      { userId: 41, repoIds: [402, 401] },
      { userId: 42, repoIds: [401] },
    ]);
    expect(await h.stars.batchListStarredRepos({ userIds: [] })).toEqual({ users: [] });
    await expect(h.stars.batchListStarredRepos({ userIds: [0] })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });

  it('answers counters in the order asked, repeats included, zeros for untouched repositories', async () => {
    await h.watches.watch({ userId: 21, repoId });
    const { counters } = await h.stars.getRepoCounters({ repoIds: [999_998, repoId, 101, repoId] });
    expect(counters).toEqual([
      { repoId: 999_998, stars: 0, watchers: 0 },
      { repoId, stars: 5, watchers: 1 },
      { repoId: 101, stars: 1, watchers: 0 },
      { repoId, stars: 5, watchers: 1 },
    ]);
    expect(await h.stars.getRepoCounters({ repoIds: [] })).toEqual({ counters: [] });
  });
});
