/**
 * The consumers on the in-process bus: a created or forked repository is watched for its creator
 * (AUTO_WATCH_NEW_REPOS, on by default), a deleted repository's stars, watches and counters go (and nobody
 * else's), a deleted user's stars and watches go and are taken off their repositories' counters, a redelivered
 * event changes nothing more, and an unreadable message is dropped without blocking the next.
 */
import { StarAdded, WatchAdded } from '@cairn/proto/cairn/social/v1/events';
import { eventually } from '@cairn/testing';
import { ConsumedSubject } from '../src/index';
import { decoded, startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});

afterAll(async () => {
  await h?.stop();
});

async function counters(repoId: number): Promise<{ stars: number; watchers: number }> {
  const { counters: [counter] } = await h.stars.getRepoCounters({ repoIds: [repoId] });
  return { stars: counter.stars, watchers: counter.watchers };
}

async function rowsFor(column: 'repo_id' | 'user_id', id: number): Promise<number> {
  const { rows } = await h.sql.query<{ count: string }>(
    `SELECT (SELECT count(*) FROM stars WHERE ${column} = $1) + (SELECT count(*) FROM watches WHERE ${column} = $1) AS count`,
    [id],
  );
  return Number(rows[0].count);
}

it('forgets a deleted repository, once', async () => {
  for (const userId of [61, 62]) {
    await h.stars.star({ userId, repoId: 601 });
    await h.watches.watch({ userId, repoId: 601 });
  }
  await h.stars.star({ userId: 61, repoId: 602 });

  const eventId = await h.publishRepoDeleted(601);
  await eventually(async () => expect(await rowsFor('repo_id', 601)).toBe(0));
  expect(await counters(601)).toEqual({ stars: 0, watchers: 0 });
  const { rows } = await h.sql.query('SELECT 1 FROM repo_counters WHERE repo_id = 601');
  expect(rows).toEqual([]);
  // Another repository keeps its star.
  expect(await counters(602)).toEqual({ stars: 1, watchers: 0 });
  expect(await h.stars.listStarredRepos({ userId: 61 })).toEqual({ repoIds: [602] });

  // Starred again after the deletion event was applied (a new repository would have a new id; this shows
  // that the event is not applied a second time when redelivered under the same id).
  await h.stars.star({ userId: 63, repoId: 601 });
  await h.publishRepoDeleted(601, eventId);
  await h.publishRepoDeleted(602);
  await eventually(async () => expect(await counters(602)).toEqual({ stars: 0, watchers: 0 }));
  expect(await counters(601)).toEqual({ stars: 1, watchers: 0 });
});

it('forgets a deleted user and takes their stars and watches off the counters', async () => {
  await h.stars.star({ userId: 71, repoId: 701 });
  await h.stars.star({ userId: 72, repoId: 701 });
  await h.stars.star({ userId: 71, repoId: 702 });
  await h.watches.watch({ userId: 71, repoId: 702 });
  await h.watches.watch({ userId: 72, repoId: 702 });

  const eventId = await h.publishUserDeleted(71);
  await eventually(async () => expect(await rowsFor('user_id', 71)).toBe(0));
  expect(await counters(701)).toEqual({ stars: 1, watchers: 0 });
  expect(await counters(702)).toEqual({ stars: 0, watchers: 1 });
  expect(await h.stars.listStargazers({ repoId: 701 })).toEqual({ userIds: [72], total: 1 });

  // Redelivered: nothing is taken off twice.
  await h.publishUserDeleted(71, eventId);
  await h.publishUserDeleted(72);
  await eventually(async () => expect(await rowsFor('user_id', 72)).toBe(0));
  expect(await counters(701)).toEqual({ stars: 0, watchers: 0 });
  expect(await counters(702)).toEqual({ stars: 0, watchers: 0 });
});

it('drops a message it can never apply and goes on with the next', async () => {
  await h.stars.star({ userId: 81, repoId: 801 });
  await h.bus.publish(ConsumedSubject.repoDeleted, '0190f0f0-0000-7000-8000-000000000001', new TextEncoder().encode('not json'));
  const wrongType = StarAdded.toJSON(StarAdded.fromPartial({ userId: 81, repoId: 801 }));
  await h.bus.publish(ConsumedSubject.repoDeleted, '0190f0f0-0000-7000-8000-000000000002', new TextEncoder().encode(JSON.stringify(wrongType)));
  await h.publishRepoDeleted(801);
  await eventually(async () => expect(await counters(801)).toEqual({ stars: 0, watchers: 0 }));
});

describe('new repositories', () => {
  it('are watched for their creator, once, with a WatchAdded', async () => {
    const before = await h.lastSeq();
    const eventId = await h.publishRepoCreated(901, 91);
    await h.publishRepoCreated(902, 91, { forkOf: 901 });
    await eventually(async () => expect(await h.watches.listWatchedRepos({ userId: 91 })).toEqual({ repoIds: expect.arrayContaining([901, 902]) }));
    expect(await counters(901)).toEqual({ stars: 0, watchers: 1 });
    expect(await counters(902)).toEqual({ stars: 0, watchers: 1 });
    const { rows } = await h.sql.query<{ mode: string }>('SELECT mode FROM watches WHERE user_id = 91 ORDER BY repo_id');
    expect(rows.map((row) => row.mode)).toEqual(['auto', 'auto']);
    const events = await h.outbox(before);
    expect(events.map((event) => event.subject)).toEqual(['cairn.watch.created', 'cairn.watch.created']);
    expect(decoded(WatchAdded, events[0])).toMatchObject({ userId: 91, repoId: 901, watchersCount: 1 });

    // Redelivered: no second watch, no second event. (The deletion after it shows it was handled.)
    await h.publishRepoCreated(901, 91, { eventId });
    await h.publishRepoDeleted(902);
    await eventually(async () => expect(await counters(902)).toEqual({ stars: 0, watchers: 0 }));
    expect(await counters(901)).toEqual({ stars: 0, watchers: 1 });
    expect((await h.outbox(before)).length).toBe(2);
  });

  it('chosen watches stay chosen: watching an auto-watched repository makes it the user\'s own, unwatching ends it', async () => {
    await h.publishRepoCreated(903, 92);
    await eventually(async () => expect(await h.watches.getWatch({ userId: 92, repoId: 903 })).toMatchObject({ watching: true }));
    await h.watches.watch({ userId: 92, repoId: 903 });
    const { rows } = await h.sql.query<{ mode: string }>('SELECT mode FROM watches WHERE user_id = 92 AND repo_id = 903');
    expect(rows).toEqual([{ mode: 'normal' }]);
    expect(await counters(903)).toEqual({ stars: 0, watchers: 1 });
    await h.watches.unwatch({ userId: 92, repoId: 903 });
    expect(await counters(903)).toEqual({ stars: 0, watchers: 0 });
  });
});

describe('with AUTO_WATCH_NEW_REPOS off', () => {
  let off: ServiceHarness;

  beforeAll(async () => {
    off = await startService({ CAIRN__service__AUTO_WATCH_NEW_REPOS: 'false' });
  });

  afterAll(async () => {
    await off?.stop();
  });

  it('new repositories are not watched', async () => {
    await off.publishRepoCreated(951, 95);
    await off.stars.star({ userId: 96, repoId: 952 });
    // The deletion published after the creation shows the creation was handled.
    await off.publishRepoDeleted(952);
    await eventually(async () => expect((await off.stars.getRepoCounters({ repoIds: [952] })).counters[0].stars).toBe(0));
    expect(await off.watches.getWatch({ userId: 95, repoId: 951 })).toEqual({ watching: false });
  });
});
