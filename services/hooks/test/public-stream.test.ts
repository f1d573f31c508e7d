/**
 * The public event stream as hooks writes it (its outbox; the relay publishes each row with its headers): one message
 * per payload, Gitea's webhook body, `cairn.events.v1.<visibility>.<event>` with every CloudEvents header; `public`
 * only when an anonymous caller could read what it is about; written whatever the hooks (none, DISABLE_WEB_HOOKS),
 * once per event, in the order the events committed; its ce-id the X-Gitea-Delivery of the payload's first delivery
 * to every hook.
 */
import { encodeEvent, uuidv7 } from '@cairn/bus';
import { CLOUDEVENTS_SPEC_VERSION, readCloudEvent } from '@cairn/events';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Comment, Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CommitStatusCreated, ReleasePublished, RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import { Release } from '@cairn/proto/cairn/repos/v1/releases_service';
import { eventually } from '@cairn/testing';
import { type Deliverer, startDeliverer } from '../src/delivery/deliverer';
import { giteaBody } from '../src/delivery/formats';
import { GIT_CONSUMER, ISSUES_CONSUMER, REPOS_CONSUMER } from '../src/events/streams';
import { payloadDeliveryId } from '../src/store/fan-out';
import { redeliver } from '../src/store/tasks';
import { type Receiver, startReceiver } from './delivery-harness';
import { addRepository } from './fake-clients';
import { type FanOutHarness, type OutboxRow, ZERO, issueOpened, message, push, sha, startFanOutHarness } from './fan-out-harness';

let h: FanOutHarness;

const meta = (repoId: number, at = new Date()) => ({ eventId: uuidv7(), occurredAt: at, actorId: 30, repoId });

function commentCreated(repoId: number, commentId: number, body: string): IssueCommentEvent {
  const issue = Issue.fromPartial({ id: 500 + repoId, repoId, index: 1, posterId: 30, title: 'Hello', created: new Date(), updated: new Date() });
  const comment = Comment.fromPartial({ id: commentId, repoId, issueId: issue.id, issueIndex: 1, posterId: 30, body, created: new Date(), updated: new Date() });
  return IssueCommentEvent.fromPartial({ meta: meta(repoId), issue, comment });
}

function releasePublished(repoId: number): ReleasePublished {
  const release = Release.fromPartial({ id: 70 + repoId, repoId, tagName: 'v1', targetCommitish: 'main', name: 'one', publisherId: 30, created: new Date() });
  return ReleasePublished.fromPartial({ meta: meta(repoId), release });
}

/** The outbox rows by subject's last two tokens (`public.issues`). */
const routes = (rows: readonly OutboxRow[]) => rows.map((row) => row.subject.split('.').slice(-2).join('.'));

beforeAll(async () => {
  h = await startFanOutHarness();
  // An organization visible to signed-in users only, and a repository without its issues unit.
  addRepository(h.world, { id: 5, ownerId: 20, ownerName: 'acme', name: 'internal', ownerType: 1, ownerVisibility: 'limited' });
  addRepository(h.world, { id: 6, ownerId: 10, ownerName: 'alice', name: 'code-only', units: ['repo.code'] });
});

afterAll(async () => {
  await h.stop();
});

beforeEach(async () => {
  await h.reset();
});

describe('messages', () => {
  it("an issue event: Gitea's webhook body on its subject, with every CloudEvents header", async () => {
    const at = new Date('2026-11-28T10:11:12.345Z');
    const event = IssueEvent.fromPartial({ ...issueOpened(1), meta: meta(1, at) });
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, event));
    const [row, ...rest] = await h.outbox();
    expect(rest).toEqual([]);
    const id = payloadDeliveryId(event.meta!.eventId, 'issues');
    expect(row.subject).toBe('cairn.events.v1.public.issues');
    expect(row.id).toBe(id);
    expect(row.headers).toEqual({
      'ce-specversion': CLOUDEVENTS_SPEC_VERSION,
      'ce-id': id,
      'ce-source': h.context.config.server.rootUrl,
      'ce-type': 'io.cairn.issues.opened',
      'ce-time': '2026-11-28T10:11:12.345Z',
      'ce-subject': 'alice/tools',
      'ce-datacontenttype': 'application/json',
    });
    expect(readCloudEvent(row.headers)).toMatchObject({ id, time: at });
    expect(row.data).toMatchObject({ action: 'opened', number: 1, issue: { title: 'Hello' }, repository: { full_name: 'alice/tools' }, sender: { login: 'carol' } });
    // The body the gitea type sends, byte for byte.
    const { rows } = await h.sql.query<{ data: Buffer }>('SELECT data FROM cairn_outbox');
    expect(rows[0].data.toString('utf8')).toBe(giteaBody(row.data));
  });

  it('a push: create and push per ref, without an action in ce-type; the payload is the one hooks get', async () => {
    await h.addHook({ scope: 'repository', repoId: 1, events: ['push', 'create'] });
    const event = push(1, 10, [{ ref: 'refs/heads/feature', oldSha: ZERO, newSha: sha(3) }]);
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    const rows = await h.outbox();
    expect(routes(rows)).toEqual(['public.create', 'public.push']);
    expect(rows.map((row) => row.headers['ce-type'])).toEqual(['io.cairn.create', 'io.cairn.push']);
    const { rows: stored } = await h.sql.query<{ event_type: string; payload: unknown; delivery_id: string }>(
      'SELECT event_type, payload, delivery_id FROM hook_payloads ORDER BY id',
    );
    expect(stored.map((payload) => [payload.event_type, payload.delivery_id])).toEqual(rows.map((row) => [row.subject.split('.').pop(), row.id]));
    expect(stored.map((payload) => payload.payload)).toEqual(rows.map((row) => row.data));
  });

  it('release, status, repository and fork events', async () => {
    await h.handle(REPOS_CONSUMER, message('cairn.release.published', ReleasePublished, releasePublished(1)));
    const status = CommitStatusCreated.fromPartial({ meta: meta(1), repoId: 1, sha: sha(3), context: 'ci', state: 'success', index: 1 });
    await h.handle(REPOS_CONSUMER, message('cairn.commit_status.created', CommitStatusCreated, status));
    const created = RepoCreated.fromPartial({ meta: meta(4), repository: h.world.repositories.get(4) });
    await h.handle(REPOS_CONSUMER, message('cairn.repo.created', RepoCreated, created));
    const fork = RepoForked.fromPartial({ meta: meta(3), repository: h.world.repositories.get(3), baseRepoId: 1 });
    await h.handle(REPOS_CONSUMER, message('cairn.repo.forked', RepoForked, fork));
    const rows = await h.outbox();
    expect(routes(rows)).toEqual(['public.release', 'public.status', 'public.repository', 'public.fork']);
    expect(rows.map((row) => row.headers['ce-type'])).toEqual(['io.cairn.release.published', 'io.cairn.status', 'io.cairn.repository.created', 'io.cairn.fork']);
    // A fork is about the repository forked (whose hooks get it).
    expect(rows.map((row) => row.headers['ce-subject'])).toEqual(['alice/tools', 'alice/tools', 'alice/new', 'alice/tools']);
  });
});

describe('visibility', () => {
  it("a private repository's, a limited owner's and a disabled unit's events go to private subjects only", async () => {
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(2)));
    await h.handle(ISSUES_CONSUMER, message('cairn.issue_comment.created', IssueCommentEvent, commentCreated(2, 900, 'secret')));
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(2, 20, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    await h.handle(REPOS_CONSUMER, message('cairn.release.published', ReleasePublished, releasePublished(2)));
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(5)));
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(5, 20, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    // No issues unit: its issue events are private, its pushes public.
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(6)));
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(6, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(routes(await h.outbox())).toEqual([
      'private.issues',
      'private.issue_comment',
      'private.push',
      'private.release',
      'private.issues',
      'private.push',
      'private.issues',
      'public.push',
    ]);
  });

  it('a fork into a private repository, and a deleted repository by what its event says', async () => {
    const fork = RepoForked.fromPartial({ meta: meta(2), repository: h.world.repositories.get(2), baseRepoId: 1 });
    await h.handle(REPOS_CONSUMER, message('cairn.repo.forked', RepoForked, fork));
    const deleted = (repoId: number, isPrivate: boolean) =>
      RepoDeleted.fromPartial({ meta: meta(repoId), repoId, ownerId: 10, ownerName: 'alice', name: `gone${repoId}`, private: isPrivate });
    await h.handle(REPOS_CONSUMER, message('cairn.repo.deleted', RepoDeleted, deleted(41, false)));
    await h.handle(REPOS_CONSUMER, message('cairn.repo.deleted', RepoDeleted, deleted(42, true)));
    const alice = h.world.users.get(10)!;
    h.world.users.set(10, { ...alice, visibility: 'limited' });
    try {
      await h.handle(REPOS_CONSUMER, message('cairn.repo.deleted', RepoDeleted, deleted(43, false)));
    } finally {
      h.world.users.set(10, alice);
    }
    const rows = await h.outbox();
    // The fork into an organization: `fork` to the original's hooks and `repository` `created` to the fork's.
    expect(routes(rows)).toEqual(['private.fork', 'private.repository', 'public.repository', 'private.repository', 'private.repository']);
    expect(rows.slice(2).map((row) => row.headers['ce-subject'])).toEqual(['alice/gone41', 'alice/gone42', 'alice/gone43']);
  });

  it('REQUIRE_SIGNIN_VIEW: everything is private, without asking repos for an anonymous view', async () => {
    h.context.config.service.requireSigninView = true;
    const asked = h.world.calls.get('batchGetRepositories(anonymous)') ?? 0;
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(1)));
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(routes(await h.outbox())).toEqual(['private.issues', 'private.push']);
    expect(h.world.calls.get('batchGetRepositories(anonymous)') ?? 0).toBe(asked);
  });

  it('one anonymous lookup per event, whatever its payloads', async () => {
    const asked = h.world.calls.get('batchGetRepositories(anonymous)') ?? 0;
    const event = push(1, 10, [
      { ref: 'refs/heads/a', oldSha: ZERO, newSha: sha(3) },
      { ref: 'refs/heads/b', oldSha: sha(2), newSha: sha(3) },
      { ref: 'refs/tags/v2', oldSha: ZERO, newSha: sha(3) },
    ]);
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(await h.countRows('cairn_outbox')).toBe(5);
    expect(h.world.calls.get('batchGetRepositories(anonymous)')).toBe(asked + 1);
  });
});

describe('delivery', () => {
  it('DISABLE_WEB_HOOKS: still published, and no task', async () => {
    await h.addHook({ scope: 'repository', repoId: 1, events: ['issues'] });
    h.context.config.security.disableWebhooks = true;
    await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(1)));
    expect([await h.countRows('cairn_outbox'), await h.countRows('hook_payloads'), await h.countRows('hook_tasks')]).toEqual([1, 0, 0]);
  });

  it('a redelivered or republished event publishes nothing twice', async () => {
    const event = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }]);
    const first = message('cairn.git.pushed', GitPushed, event);
    await h.handle(GIT_CONSUMER, first);
    await h.handle(GIT_CONSUMER, { ...first, deliveryCount: 2 });
    // Published again under another message id: the same event (meta.event_id).
    await h.handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(await h.countRows('cairn_outbox')).toBe(1);
  });

  it("a burst of comments on one issue comes out in the order it was committed", async () => {
    const events = Array.from({ length: 25 }, (_, i) => commentCreated(1, 1000 + i, `comment ${i}`));
    for (const event of events) await h.bus.publish('cairn.issue_comment.created', event.meta!.eventId, encodeEvent(IssueCommentEvent, event));
    // Handled by the running consumer, from the bus.
    const rows = await eventually(async () => {
      const written = await h.outbox();
      expect(written).toHaveLength(events.length);
      return written;
    });
    expect(rows.map((row) => (row.data.comment as { id: number }).id)).toEqual(events.map((event) => event.comment!.id));
    expect(new Set(routes(rows))).toEqual(new Set(['public.issue_comment']));
  });

  describe('to hooks', () => {
    let receiver: Receiver;
    let deliverer: Deliverer;

    beforeAll(async () => {
      receiver = await startReceiver();
      deliverer = startDeliverer({ ...h.context, config: { ...h.context.config, webhook: { ...h.context.config.webhook, allowedHostList: ['loopback'] } } }, { pollIntervalMs: 50 });
    });
    afterAll(async () => {
      await deliverer.stop();
      await receiver.close();
    });

    it("ce-id is the X-Gitea-Delivery of every hook's first delivery; a redelivery gets a uuid of its own", async () => {
      const [first, second] = [await h.addHook({ scope: 'repository', repoId: 1, events: ['issues'] }), await h.addHook({ scope: 'system', events: ['issues'] })];
      await h.sql.query(`UPDATE hooks SET url = $1`, [receiver.url]);
      await h.handle(ISSUES_CONSUMER, message('cairn.issue.opened', IssueEvent, issueOpened(1)), deliverer);
      const [row] = await h.outbox();
      await eventually(() => expect(receiver.received).toHaveLength(2));
      expect(receiver.received.map((request) => request.headers['x-gitea-delivery'])).toEqual([row.headers['ce-id'], row.headers['ce-id']]);
      expect(receiver.received.map((request) => JSON.parse(request.body) as unknown)).toEqual([row.data, row.data]);
      const again = await redeliver(h.db.pool, second, row.id);
      expect(again?.uuid).not.toBe(row.id);
      expect(await redeliver(h.db.pool, first, row.id)).toMatchObject({ redeliveryOf: row.id });
      await eventually(() => expect(receiver.received).toHaveLength(4));
    });
  });
});
