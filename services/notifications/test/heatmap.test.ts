/**
 * GetHeatmap over gRPC on a service started with `start()`, fed through the bus as in production: buckets of
 * the last 373 days, summed over repositories, filtered by the viewer as domain/activity-visibility.ts and
 * the interim RepoAccess decide — a matrix of viewers × the user's privacy setting.
 */
import { bucketOf } from '../src/domain/heatmap-buckets';
import { Code, isCairnError } from '@cairn/rpc';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { ZERO_SHA, branchUpdate, eventually, gitPushed, startService, type ServiceHarness } from './harness';

const OWNER = 1;
const DAY_MS = 86_400_000;

const viewers: Record<string, Actor | undefined> = {
  anonymous: undefined,
  self: { userId: OWNER, isAdmin: false, isRestricted: false },
  'another user': { userId: 2, isAdmin: false, isRestricted: false },
  'a restricted user': { userId: 3, isAdmin: false, isRestricted: true },
  'a site admin': { userId: 4, isAdmin: true, isRestricted: false },
};

describe('ActivityService.GetHeatmap', () => {
  let harness: ServiceHarness;
  const now = Date.now();
  // Two quarter hours, a day apart, well inside the window.
  const earlier = new Date(bucketOf(new Date(now - 10 * DAY_MS)) * 1000 + 60_000);
  const later = new Date(bucketOf(new Date(now - 9 * DAY_MS)) * 1000 + 120_000);
  const t = (at: Date) => bucketOf(at);

  beforeAll(async () => {
    harness = await startService();
    const pushes = [
      // Public repository 10: two pushes in one quarter hour, one of them creating a branch (2 actions).
      gitPushed({ pusherId: OWNER, repoId: 10, pushedAt: earlier }),
      gitPushed({ pusherId: OWNER, repoId: 10, pushedAt: new Date(earlier.getTime() + 5 * 60_000), refUpdates: [{ ref: 'refs/heads/new', oldSha: ZERO_SHA, newSha: 'c'.repeat(40) }] }),
      // Private repository 20: the same quarter hour, and the next day.
      gitPushed({ pusherId: OWNER, repoId: 20, repoPrivate: true, pushedAt: earlier }),
      gitPushed({ pusherId: OWNER, repoId: 20, repoPrivate: true, pushedAt: later, refUpdates: [branchUpdate('a'), branchUpdate('b')] }),
      // Outside the window (Gitea: 366 + 7 days).
      gitPushed({ pusherId: OWNER, repoId: 10, pushedAt: new Date(now - 374 * DAY_MS) }),
      // Someone else's push.
      gitPushed({ pusherId: 2, repoId: 10, pushedAt: earlier }),
    ];
    for (const push of pushes) await harness.publish(push);
    // Applied once the last one is: the consumer takes them in stream order.
    await eventually(async () => {
      const { rows } = await harness.sql.query('SELECT 1 FROM activity_buckets WHERE user_id = 2');
      expect(rows).toHaveLength(1);
    });
  });

  afterAll(async () => {
    await harness?.stop();
  });

  const everything = () => [
    { timestamp: t(earlier), contributions: 4 },
    { timestamp: t(later), contributions: 2 },
  ];
  const publicOnly = () => [{ timestamp: t(earlier), contributions: 3 }];

  // viewer → [activity shown, activity kept private]
  const matrix: Record<string, [() => unknown[], () => unknown[]]> = {
    anonymous: [publicOnly, () => []],
    self: [everything, everything],
    'another user': [publicOnly, () => []],
    'a restricted user': [() => [], () => []],
    'a site admin': [everything, everything],
  };

  describe.each(Object.entries(matrix))('for %s', (name, [shown, keptPrivate]) => {
    it('when the user shows their activity', async () => {
      const { buckets } = await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers[name], keepActivityPrivate: false });
      expect(buckets).toEqual(shown());
    });

    it('when the user keeps their activity private', async () => {
      const { buckets } = await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers[name], keepActivityPrivate: true });
      expect(buckets).toEqual(keptPrivate());
    });
  });

  it('answers an empty heatmap for a user without activity', async () => {
    expect(await harness.activity.getHeatmap({ userId: 99, viewer: undefined, keepActivityPrivate: false })).toEqual({ buckets: [] });
  });

  it('refuses a user id below 1 with INVALID_ARGUMENT', async () => {
    const error: unknown = await harness.activity.getHeatmap({ userId: 0, viewer: undefined, keepActivityPrivate: false }).catch((e: unknown) => e);
    expect(isCairnError(error) && error.code).toBe(Code.INVALID_ARGUMENT);
  });

  it('keeps every bucket aligned to a quarter hour', async () => {
    const { buckets } = await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers.self, keepActivityPrivate: false });
    for (const bucket of buckets) expect(bucket.timestamp % 900).toBe(0);
  });
});
