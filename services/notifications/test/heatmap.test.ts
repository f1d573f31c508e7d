/**
 * GetHeatmap over gRPC on a service started with `start()`, fed through the bus as in production: buckets of
 * the last 373 days, summed over repositories, filtered by the viewer as domain/activity-visibility.ts decides
 * and the repos service (an in-memory FilterReadable, test/fake-repos.ts) answers — a matrix of viewers × the
 * user's privacy setting, one FilterReadable batch per heatmap, and repos' errors passed on.
 */
import { bucketOf } from '../src/domain/heatmap-buckets';
import { CairnError, Code, isCairnError } from '@cairn/rpc';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { eventually } from '@cairn/testing';
import { ZERO_SHA, branchUpdate, gitPushed, startService, type ServiceHarness } from './harness';

const OWNER = 1;
const DAY_MS = 86_400_000;
// The owner's repositories: public, private (readable by a collaborator), and one the owner has since lost access to.
const PUBLIC_REPO = 10;
const PRIVATE_REPO = 20;
const LOST_REPO = 30;
const OLD_REPO = 40;

const viewers: Record<string, Actor | undefined> = {
  anonymous: undefined,
  self: { userId: OWNER, isAdmin: false, isRestricted: false },
  'another user': { userId: 2, isAdmin: false, isRestricted: false },
  'a collaborator on the private repository': { userId: 3, isAdmin: false, isRestricted: false },
  'a restricted user': { userId: 4, isAdmin: false, isRestricted: true },
  'a site admin': { userId: 5, isAdmin: true, isRestricted: false },
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
    // What repos answers: anonymous and other users read the public repository, the owner and the collaborator the
    // private one too, the restricted user nothing; nobody but a site admin reads LOST_REPO any more.
    harness.repos.readable.set(0, new Set([PUBLIC_REPO]));
    harness.repos.readable.set(OWNER, new Set([PUBLIC_REPO, PRIVATE_REPO]));
    harness.repos.readable.set(2, new Set([PUBLIC_REPO]));
    harness.repos.readable.set(3, new Set([PUBLIC_REPO, PRIVATE_REPO]));
    const pushes = [
      // Public repository: two pushes in one quarter hour, one of them creating a branch (2 actions).
      gitPushed({ pusherId: OWNER, repoId: PUBLIC_REPO, pushedAt: earlier }),
      gitPushed({ pusherId: OWNER, repoId: PUBLIC_REPO, pushedAt: new Date(earlier.getTime() + 5 * 60_000), refUpdates: [{ ref: 'refs/heads/new', oldSha: ZERO_SHA, newSha: 'c'.repeat(40) }] }),
      // Private repository: the same quarter hour, and the next day.
      gitPushed({ pusherId: OWNER, repoId: PRIVATE_REPO, pushedAt: earlier }),
      gitPushed({ pusherId: OWNER, repoId: PRIVATE_REPO, pushedAt: later, refUpdates: [branchUpdate('a'), branchUpdate('b')] }),
      // A repository the owner can no longer read.
      gitPushed({ pusherId: OWNER, repoId: LOST_REPO, pushedAt: later }),
      // Outside the window (Gitea: 366 + 7 days).
      gitPushed({ pusherId: OWNER, repoId: OLD_REPO, pushedAt: new Date(now - 374 * DAY_MS) }),
      // Someone else's push.
      gitPushed({ pusherId: 2, repoId: PUBLIC_REPO, pushedAt: earlier }),
    ];
    for (const push of pushes) await harness.publish(push);
    // Applied once the last one is: the consumer takes them in stream order.
    await eventually(async () => {
      const { rows } = await harness.sql.query('SELECT 1 FROM activity_buckets WHERE user_id = 2');
      expect(rows).toHaveLength(1);
    });
  });

  afterEach(() => {
    harness.repos.calls.length = 0;
    harness.repos.failure = undefined;
  });

  afterAll(async () => {
    await harness?.stop();
  });

  const everything = () => [
    { timestamp: t(earlier), contributions: 4 },
    { timestamp: t(later), contributions: 3 },
  ];
  const readable = () => [
    { timestamp: t(earlier), contributions: 4 },
    { timestamp: t(later), contributions: 2 },
  ];
  const publicOnly = () => [{ timestamp: t(earlier), contributions: 3 }];

  // viewer → [activity shown, activity kept private]
  const matrix: Record<string, [() => unknown[], () => unknown[]]> = {
    anonymous: [publicOnly, () => []],
    self: [readable, readable],
    'another user': [publicOnly, () => []],
    'a collaborator on the private repository': [readable, () => []],
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

  it('asks repos once per heatmap, for the viewer, about each repository of the window’s activity once', async () => {
    await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers['another user'], keepActivityPrivate: false });
    await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers.anonymous, keepActivityPrivate: false });
    expect(harness.repos.calls).toEqual([
      { viewer: viewers['another user'], repoIds: [PUBLIC_REPO, PRIVATE_REPO, LOST_REPO], publicOnly: false },
      { viewer: undefined, repoIds: [PUBLIC_REPO, PRIVATE_REPO, LOST_REPO], publicOnly: false },
    ]);
  });

  it('asks repos with public_only for a public-only token, even a site admin’s', async () => {
    await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers['a site admin'], keepActivityPrivate: false, publicOnly: true });
    expect(harness.repos.calls).toEqual([{ viewer: viewers['a site admin'], repoIds: [PUBLIC_REPO, PRIVATE_REPO, LOST_REPO], publicOnly: true }]);
  });

  it('does not ask repos for a site admin, for hidden activity or for a user without activity', async () => {
    await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers['a site admin'], keepActivityPrivate: false });
    await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers['another user'], keepActivityPrivate: true });
    expect(await harness.activity.getHeatmap({ userId: 99, viewer: viewers.self, keepActivityPrivate: false })).toEqual({ buckets: [] });
    expect(harness.repos.calls).toEqual([]);
  });

  it('fails with repos’ error rather than guessing when repos cannot answer', async () => {
    harness.repos.failure = CairnError.unavailable('repos is down');
    const error: unknown = await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers.self, keepActivityPrivate: false }).catch((e: unknown) => e);
    expect(isCairnError(error) && error.code).toBe(Code.UNAVAILABLE);
    // A site admin's heatmap does not depend on repos.
    const { buckets } = await harness.activity.getHeatmap({ userId: OWNER, viewer: viewers['a site admin'], keepActivityPrivate: false });
    expect(buckets).toEqual(everything());
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
