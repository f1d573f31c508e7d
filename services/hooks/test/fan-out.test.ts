/**
 * Fan-out on a test database: events published on the in-process bus (and handed to a consumer's handler directly
 * where a test asserts that nothing happened) become one payload row per event and type and one task per active hook
 * that may see the event and wants it.
 */
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { RepoCreated } from '@cairn/proto/cairn/repos/v1/events';
import { Code, isCairnError } from '@cairn/rpc';
import { eventually } from '@cairn/testing';
import type { Handoff } from '../src/delivery/deliverer';
import type { DueTask } from '../src/store/tasks';
import { GIT_CONSUMER, ISSUES_CONSUMER, REPOS_CONSUMER } from '../src/events/streams';
import { createTestHook } from '../src/rpc/hook-tests';
import { type FanOutHarness, ZERO, issueOpened, message, push, sha, startFanOutHarness } from './fan-out-harness';

let h: FanOutHarness;

beforeAll(async () => {
  h = await startFanOutHarness();
});

afterAll(async () => {
  await h.stop();
});

beforeEach(async () => {
  await h.reset();
});

describe('published events', () => {
  it('a push reaches the repository, owner and system hooks that want it, honouring activity, branch filter and event choice', async () => {
    const repoHook = await h.addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    const ownerHook = await h.addHook({ scope: 'user', ownerId: 10, events: ['push'] });
    const systemHook = await h.addHook({ scope: 'system', events: ['push', 'create', 'issues'] });
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push'], active: false });
    await h.addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    await h.addHook({ scope: 'organization', ownerId: 20, events: ['push'] });
    const releaseHook = await h.addHook({ scope: 'repository', repoId: 1, events: ['push'], branchFilter: 'release/*' });
    await h.addHook({ scope: 'repository', repoId: 1, events: ['issues_only'] });

    const toMain = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(1), newSha: sha(3) }]);
    await h.bus.publish('cairn.git.pushed', toMain.meta!.eventId, encodeEvent(GitPushed, toMain));
    const mainKey = `${toMain.meta!.eventId}:refs/heads/main`;
    await eventually(async () => expect(await h.taskHooks(mainKey, 'push')).toEqual([repoHook, ownerHook, systemHook]));
    const { rows } = await h.sql.query<{ event: string; payload: { total_commits: number; ref: string } }>(`SELECT event, payload FROM hook_payloads WHERE event_id = $1`, [mainKey]);
    expect(rows.map((row) => [row.event, row.payload.ref, row.payload.total_commits])).toEqual([['push', 'refs/heads/main', 2]]);

    const newRelease = push(1, 10, [{ ref: 'refs/heads/release/v1', oldSha: ZERO, newSha: sha(3) }]);
    await h.bus.publish('cairn.git.pushed', newRelease.meta!.eventId, encodeEvent(GitPushed, newRelease));
    const releaseKey = `${newRelease.meta!.eventId}:refs/heads/release/v1`;
    await eventually(async () => expect(await h.taskHooks(releaseKey, 'push')).toEqual([repoHook, ownerHook, systemHook, releaseHook]));
    expect(await h.taskHooks(releaseKey, 'create')).toEqual([systemHook]);
    expect(h.wakes.count).toBeGreaterThan(0);
  });

  it("an issue of a private repository reaches its organization's and system hooks only", async () => {
    const orgHook = await h.addHook({ scope: 'organization', ownerId: 20, events: ['issues'] });
    const systemHook = await h.addHook({ scope: 'system', events: ['issues'] });
    await h.addHook({ scope: 'user', ownerId: 10, events: ['issues'] });
    await h.addHook({ scope: 'repository', repoId: 1, events: ['issues'] });
    const event = issueOpened(2);
    await h.bus.publish('cairn.issue.opened', event.meta!.eventId, encodeEvent(IssueEvent, event));
    await eventually(async () => expect(await h.taskHooks(event.meta!.eventId, 'issues')).toEqual([orgHook, systemHook]));
    const { rows } = await h.sql.query<{ event: string; payload: { action: string; repository: { private: boolean } } }>(
      `SELECT event, payload FROM hook_payloads WHERE event_id = $1`,
      [event.meta!.eventId],
    );
    expect(rows.map((row) => [row.event, row.payload.action, row.payload.repository.private])).toEqual([['issues', 'opened', true]]);
  });
});

describe('handled messages', () => {
  it('a redelivered or republished event adds nothing; the payload is built once for every hook', async () => {
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    await h.addHook({ scope: 'system', events: ['push'] });
    const event = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }]);
    const before = h.world.calls.get('listCommitsBetween') ?? 0;
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(h.world.calls.get('listCommitsBetween')).toBe(before + 1);
    expect([await h.countRows('hook_payloads'), await h.countRows('hook_tasks')]).toEqual([1, 2]);
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect([await h.countRows('hook_payloads'), await h.countRows('hook_tasks')]).toEqual([1, 2]);
  });

  it('hands the tasks the deliverer has room for over written claimed, the rest unclaimed with a wake', async () => {
    const first = await h.addHook({ scope: 'repository', repoId: 1, events: ['push'], branchFilter: '' });
    const second = await h.addHook({ scope: 'system', events: ['push'] });
    const handed: DueTask[] = [];
    let held = 0;
    const oneSlot: Handoff = {
      leaseMs: 60_000,
      take: (wanted) => {
        const granted = Math.min(wanted, 1 - held);
        held += granted;
        return granted;
      },
      deliver: (tasks) => void handed.push(...tasks),
      release: () => void (held = 0),
    };
    const wakes = h.wakes.count;
    const event = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }]);
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event), h.fakeDeliverer(oneSlot));
    const { rows } = await h.sql.query<{ hook_id: string; uuid: string; attempts: number; leased: boolean }>(
      `SELECT hook_id, uuid, attempts, claimed_until > now() + interval '50 seconds' AS leased FROM hook_tasks ORDER BY hook_id`,
    );
    expect(rows.map((row) => [Number(row.hook_id), row.attempts, row.leased])).toEqual([
      [first, 1, true],
      [second, 0, null],
    ]);
    // The handed-over task is what a claim would have answered: its hook, its attempt, the payload as stored.
    expect(handed.map((task) => [task.hookId, task.uuid, task.attempts, task.hook.url, task.event, task.eventType])).toEqual([
      [first, rows[0].uuid, 1, 'http://receiver.test/', 'push', 'push'],
    ]);
    const { rows: stored } = await h.sql.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM hook_payloads`);
    expect(handed[0].payload).toEqual(stored[0].payload);
    expect(h.wakes.count).toBe(wakes + 1);
  });

  it('no hook wants it: built for the public stream only, no payload row or task', async () => {
    await h.addHook({ scope: 'repository', repoId: 1, events: ['issues'] });
    await h.addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect([await h.countRows('hook_payloads'), await h.countRows('hook_tasks'), await h.countRows('cairn_outbox')]).toEqual([0, 0, 1]);
  });

  it('a tag push sends its commit-less push to gitea hooks, not to chat hooks', async () => {
    const gitea = await h.addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push'], type: 'slack' });
    const event = push(1, 10, [{ ref: 'refs/tags/v1', oldSha: ZERO, newSha: sha(2) }]);
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(await h.taskHooks(`${event.meta!.eventId}:refs/tags/v1`, 'push')).toEqual([gitea]);
  });

  it('DISABLE_WEB_HOOKS: no payload row or task is created; later events deliver again', async () => {
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    h.context.config.security.disableWebhooks = true;
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(await h.countRows('hook_payloads')).toBe(0);
    h.context.config.security.disableWebhooks = false;
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(await h.countRows('hook_tasks')).toBe(1);
  });

  it('unknown subjects are acknowledged and ignored', async () => {
    await h.addHook({ scope: 'system', events: ['push', 'issues', 'repository'] });
    await expect(h.handle(ISSUES_CONSUMER, { id: uuidv7(), subject: 'cairn.label.created', data: new Uint8Array([1, 2]), deliveryCount: 1 })).resolves.toBeUndefined();
    await expect(h.handle(REPOS_CONSUMER, { id: uuidv7(), subject: 'cairn.repo.forked', data: new TextEncoder().encode('not json'), deliveryCount: 1 })).resolves.toBeUndefined();
    expect(await h.countRows('hook_payloads')).toBe(0);
  });

  it('a new repository gets a copy of every default hook, once, and its repository event', async () => {
    await h.addHook({ scope: 'default', events: ['repository'] });
    await h.addHook({ scope: 'default', events: ['push'], active: false });
    const event = RepoCreated.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 10, repoId: 4 }, repository: h.world.repositories.get(4) });
    await h.handle(REPOS_CONSUMER, message('cairn.repo.created', RepoCreated, event));
    await h.handle(REPOS_CONSUMER, message('cairn.repo.created', RepoCreated, event));
    const { rows } = await h.sql.query<{ id: string; events: string[]; active: boolean }>(`SELECT id, events, active FROM hooks WHERE scope = 'repository' AND repo_id = 4 ORDER BY id`);
    expect(rows.map((row) => [row.events, row.active])).toEqual([
      [['repository'], true],
      [['push'], false],
    ]);
    expect(await h.taskHooks(event.meta!.eventId, 'repository')).toEqual([Number(rows[0].id)]);
  });
});

describe('TestHook', () => {
  it('delivers a push of the default branch to that hook only, inactive too', async () => {
    const inactive = await h.addHook({ scope: 'repository', repoId: 1, events: ['push'], active: false });
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    const wakes = h.wakes.count;
    h.world.history.set('main', h.world.history.get(sha(3))!);
    await createTestHook({ ...h.context, deliverer: { wake: () => void h.wakes.count++ } })(
      { owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 1, ownerId: 0 }, id: inactive, doerId: 30, ref: '' },
      undefined as never,
    );
    const { rows } = await h.sql.query<{ hook_id: string; event_type: string; payload: { before: string; after: string; commits: unknown[]; total_commits: number } }>(
      `SELECT t.hook_id, p.event_type, p.payload FROM hook_tasks t JOIN hook_payloads p ON p.id = t.payload_id`,
    );
    expect(rows.map((row) => [Number(row.hook_id), row.event_type, row.payload.before, row.payload.after, row.payload.commits.length, row.payload.total_commits])).toEqual([
      [inactive, 'push', sha(3), sha(3), 1, 1],
    ]);
    expect(h.wakes.count).toBe(wakes + 1);
  });

  it("answers NOT_FOUND for another repository's hook", async () => {
    const elsewhere = await h.addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    const failure = await createTestHook(h.context)({ owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 1, ownerId: 0 }, id: elsewhere, doerId: 30, ref: '' }, undefined as never).catch(
      (error: unknown) => error,
    );
    expect(isCairnError(failure) && failure.code === Code.NOT_FOUND).toBe(true);
  });
});
