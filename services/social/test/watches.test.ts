/**
 * WatchService against a real database: watching and unwatching are idempotent, answer since when the user
 * watches, move the watchers counter once, publish one event per change, and list as the contract says.
 */
import { WatchAdded, WatchRemoved } from '@cairn/proto/cairn/social/v1/events';
import { Code } from '@cairn/rpc';
import { decoded, startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});

afterAll(async () => {
  await h?.stop();
});

async function watchersOf(repoId: number): Promise<number> {
  const { counters } = await h.stars.getRepoCounters({ repoIds: [repoId] });
  return counters[0].watchers;
}

it('watches once however often asked, keeping the first watch time', async () => {
  const before = await h.lastSeq();
  const first = await h.watches.watch({ userId: 41, repoId: 401 });
  const again = await h.watches.watch({ userId: 41, repoId: 401 });
  expect(first.created).toBeInstanceOf(Date);
  expect(again.created).toEqual(first.created);
  expect(await h.watches.getWatch({ userId: 41, repoId: 401 })).toEqual({ watching: true, created: first.created });
  expect(await watchersOf(401)).toBe(1);

  const events = await h.outbox(before);
  expect(events.map((event) => event.subject)).toEqual(['cairn.watch.created']);
  expect(decoded(WatchAdded, events[0])).toMatchObject({ userId: 41, repoId: 401, watchersCount: 1, meta: { actorId: 41, repoId: 401 } });
});

it('unwatches once however often asked', async () => {
  await h.watches.watch({ userId: 42, repoId: 402 });
  await h.watches.watch({ userId: 43, repoId: 402 });
  const before = await h.lastSeq();
  await h.watches.unwatch({ userId: 42, repoId: 402 });
  await h.watches.unwatch({ userId: 42, repoId: 402 });
  expect(await h.watches.getWatch({ userId: 42, repoId: 402 })).toEqual({ watching: false });
  expect(await watchersOf(402)).toBe(1);

  const events = await h.outbox(before);
  expect(events.map((event) => event.subject)).toEqual(['cairn.watch.deleted']);
  expect(decoded(WatchRemoved, events[0])).toMatchObject({ userId: 42, repoId: 402, watchersCount: 1 });
});

it('counts one watch when the same watch is asked for many times at once', async () => {
  const answers = await Promise.all(Array.from({ length: 10 }, () => h.watches.watch({ userId: 44, repoId: 403 })));
  expect(new Set(answers.map((answer) => answer.created?.getTime())).size).toBe(1);
  expect(await watchersOf(403)).toBe(1);
});

it('keeps stars and watches apart', async () => {
  await h.stars.star({ userId: 45, repoId: 404 });
  expect(await h.watches.getWatch({ userId: 45, repoId: 404 })).toEqual({ watching: false });
  expect(await watchersOf(404)).toBe(0);
});

it('pages through watchers oldest first and lists a user\'s watched repositories newest first', async () => {
  for (const userId of [51, 52, 53]) await h.watches.watch({ userId, repoId: 501 });
  expect(await h.watches.listWatchers({ repoId: 501, page: { page: 1, limit: 2 } })).toEqual({ userIds: [51, 52], total: 3 });
  expect(await h.watches.listWatchers({ repoId: 501, page: { page: 2, limit: 2 } })).toEqual({ userIds: [53], total: 3 });

  for (const repoId of [502, 503]) await h.watches.watch({ userId: 51, repoId });
  expect(await h.watches.listWatchedRepos({ userId: 51 })).toEqual({ repoIds: [503, 502, 501] });
});

it('refuses ids that name nobody', async () => {
  await expect(h.watches.watch({ userId: 0, repoId: 1 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'user_id_invalid' });
  await expect(h.watches.listWatchers({ repoId: 0 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'repo_id_invalid' });
  await expect(h.watches.listWatchedRepos({ userId: -1 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'user_id_invalid' });
});
