/**
 * IssueService on a real database: creating (numbering, what only writers may set, mentions, bad input changing
 * nothing), reading, editing (the poster versus writers, content_version, state), deleting, locking, the events
 * every change writes, and who may do what (reader, poster, writer, admin, site admin, anonymous; archived).
 */
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { CreateIssueRequest, EditIssueRequest, Issue, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CairnError, Code } from '@cairn/rpc';
import { MAX_BODY_BYTES } from '../src/domain/issue-text';
import { type FakeAccounts, startFakeAccounts } from './fake-accounts';
import { type FakeGitRepos, startFakeGitRepos } from './fake-git-repos';
import { decoded, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let harness: ServiceHarness;
let accounts: FakeAccounts;
/** repos, which answers who can be assigned. */
let repos: FakeGitRepos;

const POSTER = 7;
const READER = 8;
const WRITER = 9;
const ADMIN = 10;
const SITE_ADMIN = 11;
const ALICE = 21;
const BOB = 22;
const HIDDEN = 23;
const ORG = 30;

beforeAll(async () => {
  accounts = await startFakeAccounts([
    { id: ALICE, name: 'alice' },
    { id: BOB, name: 'Bob', oldNames: ['robert'] },
    { id: HIDDEN, name: 'hidden', visibleTo: [HIDDEN] },
    { id: ORG, name: 'someorg', type: 1 },
  ]);
  repos = await startFakeGitRepos();
  harness = await startService({ ...accounts.env(), ...repos.env() });
});
afterAll(async () => {
  await harness.stop();
  await accounts.stop();
  await repos.stop();
});

let nextRepo = 100;
/** A fresh repository id per test, so numbering and lists start empty. */
function freshRepo(): number {
  nextRepo += 1;
  return nextRepo;
}

const as = (repoId: number, userId: number, mode: ScopeOptions['mode'], more: Partial<ScopeOptions> = {}): RepoScope =>
  scope({ userId, mode, repoId, ...more });

async function create(repoId: number, fields: Partial<CreateIssueRequest> = {}, userId = POSTER, mode: ScopeOptions['mode'] = 'read'): Promise<Issue> {
  const { issue } = await harness.issues.createIssue({
    scope: as(repoId, userId, mode),
    title: 'an issue',
    body: '',
    ref: '',
    assigneeIds: [],
    milestoneId: 0,
    labelIds: [],
    closed: false,
    ...fields,
  });
  if (issue === undefined) throw new Error('CreateIssue answered without an issue');
  return issue;
}

async function edit(repoId: number, index: number, userId: number, mode: ScopeOptions['mode'], fields: Partial<EditIssueRequest>): Promise<Issue> {
  const { issue } = await harness.issues.editIssue({
    scope: as(repoId, userId, mode),
    index,
    fields: [],
    title: '',
    body: '',
    ref: '',
    state: '',
    assigneeIds: [],
    milestoneId: 0,
    contentVersion: 0,
    ...fields,
  });
  if (issue === undefined) throw new Error('EditIssue answered without an issue');
  return issue;
}

async function failure(call: Promise<unknown>): Promise<CairnError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

async function issueCount(repoId: number): Promise<number> {
  const { rows } = await harness.sql.query<{ n: string }>('SELECT count(*) AS n FROM issues WHERE repo_id = $1', [repoId]);
  return Number(rows[0].n);
}

async function milestone(repoId: number, title = 'v1'): Promise<number> {
  const { rows } = await harness.sql.query<{ id: string }>('INSERT INTO milestones (repo_id, title) VALUES ($1, $2) RETURNING id', [repoId, title]);
  return Number(rows[0].id);
}

async function label(repoId: number, name: string, exclusive = false): Promise<number> {
  const { rows } = await harness.sql.query<{ id: string }>(
    "INSERT INTO labels (repo_id, name, color, exclusive) VALUES ($1, $2, 'ee0701', $3) RETURNING id",
    [repoId, name, exclusive],
  );
  return Number(rows[0].id);
}

async function eventsSince(seq: number): Promise<Array<{ subject: string; event: IssueEvent }>> {
  return (await harness.outbox(seq)).filter((row) => row.subject.startsWith('cairn.issue.')).map((row) => ({ subject: row.subject, event: decoded(IssueEvent, row) }));
}

describe('creating', () => {
  test('numbers issues per repository from 1, without gaps, also when created at the same time', async () => {
    const repoId = freshRepo();
    const otherRepo = freshRepo();
    const issues = await Promise.all(Array.from({ length: 12 }, () => create(repoId)));
    expect(issues.map((issue) => issue.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect((await create(otherRepo)).index).toBe(1);
    expect((await create(repoId)).index).toBe(13);
  });

  test('a reader opens an issue as its poster; writer-only fields are ignored for them, as Gitea does', async () => {
    const repoId = freshRepo();
    const milestoneId = await milestone(repoId);
    const labelId = await label(repoId, 'bug');
    const issue = await create(repoId, {
      title: 'Crash on start',
      body: 'It crashes.',
      ref: 'refs/heads/main',
      assigneeIds: [WRITER],
      milestoneId,
      labelIds: [labelId],
      deadline: new Date('2030-01-02T03:04:05Z'),
    });
    expect(issue).toMatchObject({
      repoId,
      index: 1,
      posterId: POSTER,
      title: 'Crash on start',
      body: 'It crashes.',
      ref: 'refs/heads/main',
      isClosed: false,
      isPull: false,
      isLocked: false,
      labels: [],
      assigneeIds: [],
      contentVersion: 0,
      numComments: 0,
    });
    expect(issue.milestone).toBeUndefined();
    expect(issue.deadline).toBeUndefined();
    expect(issue.closedAt).toBeUndefined();
  });

  test('a writer sets milestone, labels (one per exclusive scope), assignees and the deadline', async () => {
    const repoId = freshRepo();
    const milestoneId = await milestone(repoId);
    const bug = await label(repoId, 'bug');
    const high = await label(repoId, 'priority/high', true);
    const low = await label(repoId, 'priority/low', true);
    const issue = await create(repoId, { assigneeIds: [ALICE, BOB, ALICE], milestoneId, labelIds: [bug, low, high], deadline: new Date('2030-01-02T03:04:05.678Z') }, WRITER, 'write');
    expect(issue.milestone).toMatchObject({ id: milestoneId, openIssues: 1, closedIssues: 0 });
    expect(issue.labels.map((l) => l.name)).toEqual(['bug', 'priority/high']);
    expect(issue.assigneeIds).toEqual([ALICE, BOB]);
    expect(issue.deadline).toEqual(new Date('2030-01-02T03:04:05Z'));
  });

  test('closed: the new issue is closed, with its closing time, and counted as closed', async () => {
    const repoId = freshRepo();
    const milestoneId = await milestone(repoId);
    const issue = await create(repoId, { closed: true, milestoneId }, WRITER, 'write');
    expect(issue.isClosed).toBe(true);
    expect(issue.closedAt).toBeInstanceOf(Date);
    expect(issue.milestone).toMatchObject({ openIssues: 0, closedIssues: 1 });
  });

  test.each<[string, Partial<CreateIssueRequest>, Code, string]>([
    ['an empty title', { title: '' }, Code.INVALID_ARGUMENT, '[Title]: Required'],
    ['a title over 255 characters', { title: 'x'.repeat(256) }, Code.INVALID_ARGUMENT, '[Title]: MaxSize'],
    ['a body over 1 MiB', { body: 'é'.repeat(MAX_BODY_BYTES / 2 + 1) }, Code.INVALID_ARGUMENT, 'body is too large: at most 1048576 bytes'],
    ['an unknown milestone', { milestoneId: 999999 }, Code.NOT_FOUND, 'milestone does not exist [id: 999999, repo_id: REPO]'],
    ['a negative milestone id', { milestoneId: -1 }, Code.NOT_FOUND, 'milestone does not exist [id: -1, repo_id: REPO]'],
    ['an unknown label', { labelIds: [999999] }, Code.INVALID_ARGUMENT, 'label does not exist [id: 999999]'],
    ['an invalid assignee id', { assigneeIds: [-5] }, Code.INVALID_ARGUMENT, 'user does not exist'],
    ['a deadline out of range', { deadline: new Date('+275000-01-01T00:00:00Z') }, Code.INVALID_ARGUMENT, 'due_date is out of range'],
  ])('%s is refused and nothing is created or numbered', async (_name, fields, code, message) => {
    const repoId = freshRepo();
    const error = await failure(create(repoId, fields, WRITER, 'write'));
    expect([error.code, error.message]).toEqual([code, message.replace('REPO', String(repoId))]);
    expect(await issueCount(repoId)).toBe(0);
    expect((await create(repoId)).index).toBe(1);
  });

  test("another repository's milestone or label is unknown", async () => {
    const repoId = freshRepo();
    const other = freshRepo();
    expect((await failure(create(repoId, { milestoneId: await milestone(other) }, WRITER, 'write'))).code).toBe(Code.NOT_FOUND);
    expect((await failure(create(repoId, { labelIds: [await label(other, 'x')] }, WRITER, 'write'))).code).toBe(Code.INVALID_ARGUMENT);
    expect(await issueCount(repoId)).toBe(0);
  });

  test('who may create: signed-in readers of the issues unit, in a repository that is not archived', async () => {
    const repoId = freshRepo();
    const request = (scope: RepoScope): CreateIssueRequest => ({ scope, title: 't', body: '', ref: '', assigneeIds: [], milestoneId: 0, labelIds: [], closed: false });
    expect((await failure(harness.issues.createIssue(request(as(repoId, 0, 'read'))))).code).toBe(Code.UNAUTHENTICATED);
    expect((await failure(harness.issues.createIssue(request(as(repoId, READER, 'none'))))).code).toBe(Code.NOT_FOUND);
    expect((await failure(harness.issues.createIssue(request(as(repoId, READER, 'read', { units: ['repo.code', 'repo.pulls'] }))))).code).toBe(Code.NOT_FOUND);
    const archived = await failure(harness.issues.createIssue(request(as(repoId, WRITER, 'write', { archived: true }))));
    expect([archived.code, archived.reason]).toEqual([Code.FAILED_PRECONDITION, 'archived']);
    expect(await issueCount(repoId)).toBe(0);
  });

  test('the poster id is the viewer, never the Ghost (-1)', async () => {
    const issue = await create(freshRepo(), {}, SITE_ADMIN, 'owner');
    expect(issue.posterId).toBe(SITE_ADMIN);
  });
});

describe('mentions', () => {
  test('accounts resolve @names as the poster sees them: unknown, hidden, old names and organizations are no mention', async () => {
    const repoId = freshRepo();
    const seq = await harness.lastSeq();
    const issue = await create(repoId, { body: '@alice and @BOB, cc @nobody @hidden @robert @someorg `@alice2` @org/team' });
    const { rows } = await harness.sql.query<{ user_id: string }>('SELECT user_id FROM issue_mentions WHERE issue_id = $1 ORDER BY user_id', [issue.id]);
    expect(rows.map((row) => Number(row.user_id))).toEqual([ALICE, BOB]);
    const [opened] = await eventsSince(seq);
    expect(opened.subject).toBe('cairn.issue.opened');
    expect([...opened.event.mentionedUserIds].sort()).toEqual([ALICE, BOB]);
    expect(accounts.asked).not.toContain('alice2');
  });

  test('an edit reports only the users mentioned for the first time', async () => {
    const repoId = freshRepo();
    const issue = await create(repoId, { body: 'hi @alice' });
    const seq = await harness.lastSeq();
    await edit(repoId, issue.index, POSTER, 'read', { fields: ['body'], body: 'hi @alice and @bob' });
    const [edited] = await eventsSince(seq);
    expect(edited.subject).toBe('cairn.issue.edited');
    expect(edited.event.mentionedUserIds).toEqual([BOB]);
  });

  test('mentioned_by finds the issue', async () => {
    const repoId = freshRepo();
    await create(repoId, { title: 'no mention' });
    const mentioned = await create(repoId, { title: 'mentions alice', body: '@alice' });
    const { issues, total } = await harness.issues.listIssues({ scope: as(repoId, READER, 'read'), filter: { ...emptyFilter(), mentionedId: ALICE }, page: { page: 1, limit: 10 } });
    expect([issues.map((i) => i.id), total]).toEqual([[mentioned.id], 1]);
  });
});

function emptyFilter() {
  return { state: '', type: '', labels: [], milestones: [], q: '', createdById: 0, assignedId: 0, mentionedId: 0, reviewRequestedId: 0, reviewedId: 0 };
}

describe('reading', () => {
  test('an issue is read by readers, anonymous ones too; missing or hidden is NOT_FOUND', async () => {
    const repoId = freshRepo();
    const issue = await create(repoId);
    expect((await harness.issues.getIssue({ scope: as(repoId, 0, 'read'), index: 1 })).issue?.id).toBe(issue.id);
    const cases: Array<[number, number, Partial<ScopeOptions>]> = [
      [READER, 2, {}],
      [READER, 0, {}],
      [READER, -1, {}],
      [0, 1, { units: ['repo.code'] }],
    ];
    for (const [viewer, index, more] of cases) {
      expect((await failure(harness.issues.getIssue({ scope: as(repoId, viewer, 'read', more), index }))).code).toBe(Code.NOT_FOUND);
    }
    expect((await failure(harness.issues.getIssue({ scope: as(repoId, READER, 'none'), index: 1 }))).code).toBe(Code.NOT_FOUND);
  });

  test('a pull request needs the pull requests unit', async () => {
    const repoId = freshRepo();
    const issue = await create(repoId);
    await harness.sql.query('UPDATE issues SET is_pull = true WHERE id = $1', [issue.id]);
    expect((await failure(harness.issues.getIssue({ scope: as(repoId, READER, 'read', { units: ['repo.issues'] }), index: 1 }))).code).toBe(Code.NOT_FOUND);
    expect((await harness.issues.getIssue({ scope: as(repoId, READER, 'read', { units: ['repo.pulls'] }), index: 1 })).issue?.isPull).toBe(true);
  });

  test('BatchGetIssues answers the issues that exist, any repository', async () => {
    const a = await create(freshRepo());
    const b = await create(freshRepo());
    const { issues } = await harness.issues.batchGetIssues({ ids: [b.id, a.id, 99999999, -1] });
    expect(issues.map((issue) => issue.id).sort()).toEqual([a.id, b.id].sort());
  });

  test("BatchGetIssueSubjects: title, number, state and each issue's newest plain comment, other kinds of comment left out", async () => {
    const repoId = freshRepo();
    const [a, b] = [await create(repoId), await create(repoId)];
    const comment = async (issueId: number, type: number, created: string) =>
      Number(
        (
          await harness.sql.query<{ id: string }>(
            `INSERT INTO comments (repo_id, issue_id, type, poster_id, body, created) VALUES ($1, $2, $3, 1, 'x', $4) RETURNING id`,
            [repoId, issueId, type, created],
          )
        ).rows[0].id,
      );
    await comment(a.id, 0, '2024-01-01T00:00:00Z');
    const newest = await comment(a.id, 0, '2024-01-02T00:00:00Z');
    // A later review comment is no plain comment (Gitea's GetLastComment: type comment only).
    await comment(a.id, 22, '2024-01-03T00:00:00Z');
    await comment(b.id, 22, '2024-01-03T00:00:00Z');
    await harness.sql.query('UPDATE issues SET is_closed = true WHERE id = $1', [b.id]);
    const { subjects } = await harness.issues.batchGetIssueSubjects({ ids: [a.id, b.id, 99999999, -1] });
    expect([...subjects].sort((x, y) => x.id - y.id)).toEqual(
      [
        { id: a.id, repoId, index: a.index, title: a.title, isPull: false, isClosed: false, merged: false, lastCommentId: newest },
        { id: b.id, repoId, index: b.index, title: b.title, isPull: false, isClosed: true, merged: false, lastCommentId: 0 },
      ].sort((x, y) => x.id - y.id),
    );
  });
});

describe('editing', () => {
  test('the poster changes title, body, ref and state; writer-only fields stay as they were', async () => {
    const repoId = freshRepo();
    const milestoneId = await milestone(repoId);
    await create(repoId, { body: 'old' });
    const seq = await harness.lastSeq();
    const edited = await edit(repoId, 1, POSTER, 'read', {
      fields: ['title', 'body', 'ref', 'state', 'assignees', 'milestone', 'deadline', 'content_version'],
      title: 'new title',
      body: 'new body',
      ref: 'v1',
      state: 'closed',
      assigneeIds: [ALICE],
      milestoneId,
      deadline: new Date('2030-01-01T23:59:59Z'),
      contentVersion: 0,
    });
    expect(edited).toMatchObject({ title: 'new title', body: 'new body', ref: 'v1', isClosed: true, assigneeIds: [], contentVersion: 1, posterId: POSTER });
    expect(edited.milestone).toBeUndefined();
    expect(edited.deadline).toBeUndefined();
    expect(edited.closedAt).toBeInstanceOf(Date);
    const events = await eventsSince(seq);
    expect(events.map((e) => e.subject)).toEqual(['cairn.issue.edited', 'cairn.issue.closed']);
    expect(events[0].event).toMatchObject({ changed: ['title', 'body', 'ref'], previousTitle: 'an issue', previousBody: 'old', repoPrivate: false });
    expect(events[1].event.issue?.isClosed).toBe(true);
  });

  test('a writer changes assignees, milestone (0 removes it) and deadline, and reopens', async () => {
    const repoId = freshRepo();
    const m1 = await milestone(repoId, 'one');
    const m2 = await milestone(repoId, 'two');
    await create(repoId, { closed: true, milestoneId: m1, assigneeIds: [ALICE] }, WRITER, 'write');
    const seq = await harness.lastSeq();
    const edited = await edit(repoId, 1, WRITER, 'write', {
      fields: ['assignees', 'milestone', 'deadline', 'state'],
      assigneeIds: [BOB],
      milestoneId: m2,
      deadline: new Date('2031-05-05T23:59:59Z'),
      state: 'open',
    });
    expect(edited).toMatchObject({ assigneeIds: [BOB], isClosed: false, deadline: new Date('2031-05-05T23:59:59Z') });
    expect(edited.closedAt).toBeUndefined();
    expect(edited.milestone).toMatchObject({ id: m2, openIssues: 1, closedIssues: 0 });
    const events = await eventsSince(seq);
    expect(events.map((e) => e.subject)).toEqual(['cairn.issue.edited', 'cairn.issue.assigned', 'cairn.issue.milestoned', 'cairn.issue.reopened']);
    expect(events[1].event).toMatchObject({ addedAssigneeIds: [BOB], removedAssigneeIds: [ALICE] });
    const { rows } = await harness.sql.query<{ id: string; num_issues: number; num_closed_issues: number }>(
      'SELECT id, num_issues, num_closed_issues FROM milestones WHERE repo_id = $1 ORDER BY id',
      [repoId],
    );
    expect(rows.map((r) => [Number(r.id), r.num_issues, r.num_closed_issues])).toEqual([
      [m1, 0, 0],
      [m2, 1, 0],
    ]);
    const removed = await edit(repoId, 1, WRITER, 'write', { fields: ['milestone', 'deadline', 'assignees'], milestoneId: 0, assigneeIds: [] });
    expect(removed.milestone).toBeUndefined();
    expect(removed.deadline).toBeUndefined();
    expect(removed.assigneeIds).toEqual([]);
  });

  test('fields not named do not change; an empty title leaves the title', async () => {
    const repoId = freshRepo();
    await create(repoId, { body: 'keep', ref: 'keep-ref' });
    const edited = await edit(repoId, 1, POSTER, 'read', { fields: ['title'], title: '', body: 'ignored', ref: 'ignored' });
    expect(edited).toMatchObject({ title: 'an issue', body: 'keep', ref: 'keep-ref', contentVersion: 0 });
  });

  test('someone who neither posted nor writes is refused with an empty message, and nothing changes', async () => {
    const repoId = freshRepo();
    await create(repoId);
    const error = await failure(edit(repoId, 1, READER, 'read', { fields: ['title'], title: 'hijacked' }));
    expect([error.code, error.message]).toEqual([Code.PERMISSION_DENIED, '']);
    expect((await harness.issues.getIssue({ scope: as(repoId, READER, 'read'), index: 1 })).issue?.title).toBe('an issue');
    expect((await failure(edit(repoId, 1, 0, 'read', { fields: ['title'], title: 'x' }))).code).toBe(Code.UNAUTHENTICATED);
    // A writer who did not post may edit.
    expect((await edit(repoId, 1, WRITER, 'write', { fields: ['title'], title: 'by a writer' })).title).toBe('by a writer');
  });

  test('a stale content_version is ABORTED and nothing changes; the right one is taken and bumped', async () => {
    const repoId = freshRepo();
    await create(repoId, { body: 'v0' });
    const first = await edit(repoId, 1, POSTER, 'read', { fields: ['body', 'content_version'], body: 'v1', contentVersion: 0 });
    expect(first.contentVersion).toBe(1);
    const stale = await failure(edit(repoId, 1, POSTER, 'read', { fields: ['body', 'content_version', 'title'], body: 'lost', title: 'lost', contentVersion: 0 }));
    expect([stale.code, stale.message]).toEqual([Code.ABORTED, 'the issue is already changed']);
    const now = (await harness.issues.getIssue({ scope: as(repoId, POSTER, 'read'), index: 1 })).issue;
    expect(now).toMatchObject({ body: 'v1', title: 'an issue', contentVersion: 1 });
    // Without a body, Gitea does not look at content_version.
    expect((await edit(repoId, 1, POSTER, 'read', { fields: ['title', 'content_version'], title: 't2', contentVersion: 42 })).title).toBe('t2');
  });

  test('an unknown state or milestone is refused and nothing changes', async () => {
    const repoId = freshRepo();
    await create(repoId);
    const state = await failure(edit(repoId, 1, WRITER, 'write', { fields: ['title', 'state'], title: 'changed', state: 'merged' }));
    expect([state.code, state.message, state.reason]).toEqual([Code.FAILED_PRECONDITION, 'unknown state: merged', 'unknown_state']);
    const milestoneError = await failure(edit(repoId, 1, WRITER, 'write', { fields: ['title', 'milestone'], title: 'changed', milestoneId: 424242 }));
    expect(milestoneError.code).toBe(Code.NOT_FOUND);
    expect((await harness.issues.getIssue({ scope: as(repoId, READER, 'read'), index: 1 })).issue?.title).toBe('an issue');
  });

  test('an archived repository takes no edit', async () => {
    const repoId = freshRepo();
    await create(repoId);
    const error = await failure(
      harness.issues.editIssue({ scope: as(repoId, WRITER, 'write', { archived: true }), index: 1, fields: ['title'], title: 'y', body: '', ref: '', state: '', assigneeIds: [], milestoneId: 0, contentVersion: 0 }),
    );
    expect([error.code, error.reason]).toEqual([Code.FAILED_PRECONDITION, 'archived']);
    expect((await harness.issues.getIssue({ scope: as(repoId, READER, 'read'), index: 1 })).issue?.title).toBe('an issue');
  });
});

describe('deleting', () => {
  test('repository admins and site admins delete; the issue takes its comments, labels, assignees and times along', async () => {
    const repoId = freshRepo();
    const labelId = await label(repoId, 'bug');
    const issue = await create(repoId, { labelIds: [labelId], assigneeIds: [ALICE], body: '@alice' }, WRITER, 'write');
    await harness.sql.query("INSERT INTO comments (repo_id, issue_id, poster_id, body) VALUES ($1, $2, $3, 'hi')", [repoId, issue.id, READER]);
    await harness.sql.query('INSERT INTO tracked_times (issue_id, repo_id, user_id, time) VALUES ($1, $2, $3, 60)', [issue.id, repoId, WRITER]);
    for (const [userId, mode] of [
      [POSTER, 'read'],
      [WRITER, 'write'],
    ] as const) {
      const error = await failure(harness.issues.deleteIssue({ scope: as(repoId, userId, mode), index: 1 }));
      expect([error.code, error.message]).toEqual([Code.PERMISSION_DENIED, 'user should be an owner or a collaborator with admin write of a repository']);
    }
    const seq = await harness.lastSeq();
    await harness.issues.deleteIssue({ scope: as(repoId, ADMIN, 'admin'), index: 1 });
    const events = await eventsSince(seq);
    expect(events.map((e) => e.subject)).toEqual(['cairn.issue.deleted']);
    expect(events[0].event.issue).toMatchObject({ id: issue.id, index: 1 });
    for (const table of ['issues', 'comments', 'issue_labels', 'issue_assignees', 'issue_mentions', 'tracked_times']) {
      const column = table === 'issues' ? 'id' : 'issue_id';
      const { rows } = await harness.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [issue.id]);
      expect([table, Number(rows[0].n)]).toEqual([table, 0]);
    }
    expect((await failure(harness.issues.getIssue({ scope: as(repoId, ADMIN, 'admin'), index: 1 }))).code).toBe(Code.NOT_FOUND);
    // The number is not reused.
    expect((await create(repoId)).index).toBe(2);
    await harness.issues.deleteIssue({ scope: as(repoId, SITE_ADMIN, 'read', { isAdmin: true }), index: 2 });
    expect(await issueCount(repoId)).toBe(0);
    expect((await failure(harness.issues.deleteIssue({ scope: as(repoId, ADMIN, 'admin'), index: 2 }))).code).toBe(Code.NOT_FOUND);
  });
});

describe('locking', () => {
  test('issue writers lock and unlock; the reason is kept on the timeline; repeating changes nothing', async () => {
    const repoId = freshRepo();
    await create(repoId);
    const error = await failure(harness.issues.setIssueLocked({ scope: as(repoId, POSTER, 'read'), index: 1, locked: true, reason: 'spam' }));
    expect([error.code, error.message]).toEqual([Code.PERMISSION_DENIED, 'no permission to lock this issue']);
    const seq = await harness.lastSeq();
    await harness.issues.setIssueLocked({ scope: as(repoId, WRITER, 'write'), index: 1, locked: true, reason: 'too heated' });
    await harness.issues.setIssueLocked({ scope: as(repoId, WRITER, 'write'), index: 1, locked: true, reason: 'again' });
    expect((await harness.issues.getIssue({ scope: as(repoId, READER, 'read'), index: 1 })).issue?.isLocked).toBe(true);
    await harness.issues.setIssueLocked({ scope: as(repoId, WRITER, 'write'), index: 1, locked: false, reason: '' });
    expect((await eventsSince(seq)).map((e) => e.subject)).toEqual(['cairn.issue.locked', 'cairn.issue.unlocked']);
    const { rows } = await harness.sql.query<{ type: number; body: string }>(
      'SELECT c.type, c.body FROM comments c JOIN issues i ON i.id = c.issue_id WHERE i.repo_id = $1 ORDER BY c.id',
      [repoId],
    );
    expect(rows).toEqual([
      { type: 23, body: 'too heated' },
      { type: 24, body: '' },
    ]);
    const issue = (await harness.issues.getIssue({ scope: as(repoId, READER, 'read'), index: 1 })).issue;
    expect([issue?.isLocked, issue?.numComments]).toEqual([false, 0]);
  });
});

describe('events', () => {
  test('a private repository says so, and an opened issue reports its assignees', async () => {
    const repoId = freshRepo();
    const seq = await harness.lastSeq();
    const { issue } = await harness.issues.createIssue({
      scope: as(repoId, WRITER, 'write', { private: true }),
      title: 'secret',
      body: '',
      ref: '',
      assigneeIds: [ALICE],
      milestoneId: 0,
      labelIds: [],
      closed: false,
    });
    const events = await eventsSince(seq);
    expect(events.map((e) => e.subject)).toEqual(['cairn.issue.opened', 'cairn.issue.assigned']);
    expect(events[0].event).toMatchObject({ repoPrivate: true, addedAssigneeIds: [ALICE], issue: { id: issue?.id, title: 'secret' } });
    expect(events[0].event.meta).toMatchObject({ actorId: WRITER, repoId });
  });
});
