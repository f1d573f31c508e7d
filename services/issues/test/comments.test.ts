/**
 * CommentService on a real database: who may comment, edit and delete (Gitea's matrix: readers comment, locked
 * issues take writers' and site admins' comments only, the poster or an issue writer edits and deletes, anyone else
 * gets a bare 403), a comment of another repository or of an unreadable unit is not found, `since`/`before` on the
 * updated time (whole seconds, both ends included), the repository-wide list's pages and total, bad input refused
 * with nothing changed, the issue's `updated` and comment count, and the events every change writes.
 */
import { IssueCommentEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Comment, RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { Code } from '@cairn/rpc';
import { decoded, scope, startService, type ScopeOptions, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});
afterAll(async () => {
  await h.stop();
});

const REPO = 21;
const OTHER_REPO = 22;
const POSTER = 31;
const READER = 32;
const WRITER = 33;
const ADMIN = 34;

const as = (userId: number, mode: ScopeOptions['mode'] = 'read', more: Partial<ScopeOptions> = {}): RepoScope => scope({ userId, mode, repoId: REPO, ...more });

let nextIndex = 1;
/** An issue of REPO written directly (the issue RPCs are another area's). */
async function insertIssue(more: { repoId?: number; isPull?: boolean; locked?: boolean; posterId?: number } = {}): Promise<{ id: number; index: number }> {
  const index = nextIndex++;
  const { rows } = await h.sql.query<{ id: string }>(
    `INSERT INTO issues (repo_id, index, poster_id, title, is_pull, is_locked, updated) VALUES ($1, $2, $3, $4, $5, $6, now() - interval '1 day') RETURNING id`,
    [more.repoId ?? REPO, index, more.posterId ?? POSTER, `issue ${index}`, more.isPull ?? false, more.locked ?? false],
  );
  return { id: Number(rows[0].id), index };
}

async function issueRow(id: number): Promise<{ num_comments: number; updated: Date }> {
  const { rows } = await h.sql.query<{ num_comments: number; updated: Date }>('SELECT num_comments, updated FROM issues WHERE id = $1', [id]);
  return rows[0];
}

async function comment(index: number, body: string, who: RepoScope = as(POSTER)): Promise<Comment> {
  const { comment: created } = await h.comments.createComment({ scope: who, index, body });
  if (created === undefined) throw new Error('CreateComment answered without a comment');
  return created;
}

async function commentCount(): Promise<number> {
  const { rows } = await h.sql.query<{ n: string }>('SELECT count(*) AS n FROM comments');
  return Number(rows[0].n);
}

describe('creating', () => {
  test('a reader comments: the comment, its issue counted and updated, and the event', async () => {
    const issue = await insertIssue();
    const before = await issueRow(issue.id);
    const seq = await h.lastSeq();
    const created = await comment(issue.index, 'first!', as(READER));
    expect(created).toMatchObject({ repoId: REPO, issueId: issue.id, issueIndex: issue.index, issueIsPull: false, posterId: READER, body: 'first!' });
    const after = await issueRow(issue.id);
    expect(after.num_comments).toBe(1);
    expect(after.updated.getTime()).toBeGreaterThan(before.updated.getTime());

    const events = await h.outbox(seq);
    expect(events.map((row) => row.subject)).toEqual(['cairn.issue_comment.created']);
    const event = decoded(IssueCommentEvent, events[0]);
    expect(event).toMatchObject({ comment: { id: created.id, body: 'first!' }, issue: { id: issue.id, numComments: 1 }, repoPrivate: false });
    expect(event.meta).toMatchObject({ actorId: READER, repoId: REPO });
  });

  test('a private repository says so in the event', async () => {
    const issue = await insertIssue();
    const seq = await h.lastSeq();
    await comment(issue.index, 'secret', as(READER, 'read', { private: true }));
    expect(decoded(IssueCommentEvent, (await h.outbox(seq))[0]).repoPrivate).toBe(true);
  });

  test('needs a signed-in viewer who may read the issue, and a repository that is not archived', async () => {
    const issue = await insertIssue();
    const pull = await insertIssue({ isPull: true });
    const count = await commentCount();
    await expect(comment(issue.index, 'x', as(0))).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });
    await expect(comment(issue.index, 'x', as(READER, 'none'))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    // The pull request's unit is off: its comments are not there for this viewer.
    await expect(comment(pull.index, 'x', as(READER, 'read', { units: ['repo.code', 'repo.issues'] }))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(comment(issue.index, 'x', as(WRITER, 'write', { archived: true }))).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION, reason: 'archived' });
    await expect(comment(9999, 'x', as(READER))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(comment(-1, 'x', as(READER))).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect(await commentCount()).toBe(count);
  });

  test('a locked issue takes comments from issue writers and site admins only', async () => {
    const issue = await insertIssue({ locked: true });
    await expect(comment(issue.index, 'let me in', as(READER))).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'You cannot comment on a locked issue.',
      reason: 'issue_locked',
    });
    // The poster too, when they only read.
    await expect(comment(issue.index, 'mine', as(POSTER))).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    await comment(issue.index, 'writer', as(WRITER, 'write'));
    await comment(issue.index, 'admin', as(ADMIN, 'read', { isAdmin: true }));
    expect((await issueRow(issue.id)).num_comments).toBe(2);
  });

  test('bad bodies are refused and change nothing', async () => {
    const issue = await insertIssue();
    const count = await commentCount();
    const seq = await h.lastSeq();
    await expect(comment(issue.index, '')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, message: '[Body]: Required' });
    await expect(comment(issue.index, 'x'.repeat(1024 * 1024 + 1))).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'body_too_large' });
    // PostgreSQL text cannot hold NUL: refused as bad input, not a server error.
    await expect(comment(issue.index, 'a\u0000b')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect(await commentCount()).toBe(count);
    expect(await h.outbox(seq)).toEqual([]);
    expect((await issueRow(issue.id)).num_comments).toBe(0);
  });

  test('injection-like text is stored as written', async () => {
    const issue = await insertIssue();
    const body = "'); DROP TABLE comments; -- <script>alert(1)</script> ${x} %s";
    const created = await comment(issue.index, body);
    expect((await h.comments.getComment({ scope: as(READER), id: created.id })).comment?.body).toBe(body);
  });
});

describe('editing and deleting', () => {
  test('the poster and issue writers edit; others get a bare 403', async () => {
    const issue = await insertIssue();
    const created = await comment(issue.index, 'v1');
    await expect(h.comments.editComment({ scope: as(READER), id: created.id, body: 'hijack' })).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: '',
      reason: 'comment_forbidden',
    });
    await expect(h.comments.editComment({ scope: as(0), id: created.id, body: 'anon' })).rejects.toMatchObject({ code: Code.UNAUTHENTICATED });

    const seq = await h.lastSeq();
    const { comment: edited } = await h.comments.editComment({ scope: as(POSTER), id: created.id, body: 'v2' });
    expect(edited).toMatchObject({ id: created.id, body: 'v2', posterId: POSTER });
    expect(edited!.updated!.getTime()).toBeGreaterThanOrEqual(created.updated!.getTime());
    const { comment: byWriter } = await h.comments.editComment({ scope: as(WRITER, 'write'), id: created.id, body: 'v3' });
    expect(byWriter?.body).toBe('v3');
    const { rows } = await h.sql.query<{ content_version: number }>('SELECT content_version FROM comments WHERE id = $1', [created.id]);
    expect(rows[0].content_version).toBe(2);

    const events = (await h.outbox(seq)).map((row) => ({ subject: row.subject, event: decoded(IssueCommentEvent, row) }));
    expect(events.map((e) => [e.subject, e.event.previousBody, e.event.comment?.body, e.event.meta?.actorId])).toEqual([
      ['cairn.issue_comment.edited', 'v1', 'v2', POSTER],
      ['cairn.issue_comment.edited', 'v2', 'v3', WRITER],
    ]);
  });

  test('editing needs a repository that is not archived and a body', async () => {
    const issue = await insertIssue();
    const created = await comment(issue.index, 'keep');
    await expect(h.comments.editComment({ scope: as(POSTER, 'read', { archived: true }), id: created.id, body: 'x' })).rejects.toMatchObject({
      code: Code.FAILED_PRECONDITION,
      reason: 'archived',
    });
    await expect(h.comments.editComment({ scope: as(POSTER), id: created.id, body: '' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    expect((await h.comments.getComment({ scope: as(READER), id: created.id })).comment?.body).toBe('keep');
  });

  test('the poster and issue writers delete; the issue is counted down and updated', async () => {
    const issue = await insertIssue();
    const mine = await comment(issue.index, 'mine');
    const theirs = await comment(issue.index, 'theirs', as(READER));
    await expect(h.comments.deleteComment({ scope: as(READER), id: mine.id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: '' });
    expect((await issueRow(issue.id)).num_comments).toBe(2);

    await h.sql.query(`UPDATE issues SET updated = now() - interval '1 hour' WHERE id = $1`, [issue.id]);
    const before = await issueRow(issue.id);
    const seq = await h.lastSeq();
    await h.comments.deleteComment({ scope: as(POSTER), id: mine.id });
    await h.comments.deleteComment({ scope: as(WRITER, 'write'), id: theirs.id });
    const after = await issueRow(issue.id);
    expect(after.num_comments).toBe(0);
    expect(after.updated.getTime()).toBeGreaterThan(before.updated.getTime());
    const events = await h.outbox(seq);
    expect(events.map((row) => row.subject)).toEqual(['cairn.issue_comment.deleted', 'cairn.issue_comment.deleted']);
    expect(decoded(IssueCommentEvent, events[0])).toMatchObject({ comment: { id: mine.id, body: 'mine' }, issue: { numComments: 1 } });

    await expect(h.comments.getComment({ scope: as(READER), id: mine.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.comments.deleteComment({ scope: as(POSTER), id: mine.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
  });

  test('deleting works in an archived repository, as Gitea has no archived check there', async () => {
    const issue = await insertIssue();
    const created = await comment(issue.index, 'old');
    await h.comments.deleteComment({ scope: as(POSTER, 'read', { archived: true }), id: created.id });
    expect((await issueRow(issue.id)).num_comments).toBe(0);
  });
});

describe('another repository, hidden units, other kinds of comment', () => {
  test("a comment of another repository is not found there, and is left alone", async () => {
    const foreign = await insertIssue({ repoId: OTHER_REPO });
    const created = await comment(foreign.index, 'elsewhere', scope({ userId: POSTER, repoId: OTHER_REPO }));
    const here = as(POSTER, 'admin');
    await expect(h.comments.getComment({ scope: here, id: created.id })).rejects.toMatchObject({
      code: Code.NOT_FOUND,
      reason: 'comment_not_found',
      message: `comment does not exist [id: ${created.id}, issue_id: 0]`,
    });
    await expect(h.comments.editComment({ scope: here, id: created.id, body: 'x' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.comments.deleteComment({ scope: here, id: created.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    const { comment: still } = await h.comments.getComment({ scope: scope({ userId: 0, repoId: OTHER_REPO }), id: created.id });
    expect(still?.body).toBe('elsewhere');
  });

  test('ids that name nothing are not found', async () => {
    for (const id of [0, -5, 2 ** 53 - 1]) {
      await expect(h.comments.getComment({ scope: as(READER), id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    }
  });

  test("a pull request's comments need the pull requests unit", async () => {
    const pull = await insertIssue({ isPull: true });
    const created = await comment(pull.index, 'on a pull');
    const issuesOnly = as(READER, 'read', { units: ['repo.code', 'repo.issues'] });
    await expect(h.comments.getComment({ scope: issuesOnly, id: created.id })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.comments.listIssueComments({ scope: issuesOnly, index: pull.index })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    expect((await h.comments.getComment({ scope: as(READER), id: created.id })).comment?.issueIsPull).toBe(true);
  });

  test('another kind of comment is not a plain comment: not listed, not edited, not deleted', async () => {
    const issue = await insertIssue();
    const { rows } = await h.sql.query<{ id: string }>(
      "INSERT INTO comments (repo_id, issue_id, type, poster_id, body) VALUES ($1, $2, 2, $3, 'closed it') RETURNING id",
      [REPO, issue.id, POSTER],
    );
    const id = Number(rows[0].id);
    const notPlain = { code: Code.FAILED_PRECONDITION, reason: 'not_plain_comment' };
    await expect(h.comments.getComment({ scope: as(READER), id })).rejects.toMatchObject(notPlain);
    await expect(h.comments.editComment({ scope: as(POSTER), id, body: 'x' })).rejects.toMatchObject(notPlain);
    await expect(h.comments.deleteComment({ scope: as(POSTER), id })).rejects.toMatchObject(notPlain);
    // The permission check comes first, as in Gitea.
    await expect(h.comments.deleteComment({ scope: as(READER), id })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
    expect((await h.comments.listIssueComments({ scope: as(READER), index: issue.index })).comments).toEqual([]);
    expect((await h.comments.batchGetComments({ ids: [id] })).comments).toEqual([]);
  });
});

describe('lists', () => {
  /** Sets a comment's updated time. */
  async function setUpdated(id: number, at: string): Promise<void> {
    await h.sql.query('UPDATE comments SET updated = $2 WHERE id = $1', [id, at]);
  }

  test('one issue: oldest first, since and before on the updated time, both ends included to the second', async () => {
    const issue = await insertIssue();
    const a = await comment(issue.index, 'a');
    const b = await comment(issue.index, 'b', as(READER));
    const c = await comment(issue.index, 'c');
    await setUpdated(a.id, '2024-01-01T10:00:00.000Z');
    await setUpdated(b.id, '2024-01-02T10:00:00.700Z');
    await setUpdated(c.id, '2024-01-03T10:00:00.000Z');
    const list = async (since?: string, before?: string) =>
      (
        await h.comments.listIssueComments({
          scope: as(0),
          index: issue.index,
          since: since === undefined ? undefined : new Date(since),
          before: before === undefined ? undefined : new Date(before),
        })
      ).comments.map((x) => x.body);
    expect(await list()).toEqual(['a', 'b', 'c']);
    expect(await list('2024-01-02T10:00:00Z')).toEqual(['b', 'c']);
    // b was updated at 10:00:00.700, in the second `before` names.
    expect(await list(undefined, '2024-01-02T10:00:00Z')).toEqual(['a', 'b']);
    expect(await list('2024-01-01T10:00:01Z', '2024-01-03T09:59:59Z')).toEqual(['b']);
    expect(await list('2024-01-04T00:00:00Z')).toEqual([]);
    // Times before 1970 filter nothing (Gitea's `> 0`).
    expect(await list('1960-01-01T00:00:00Z', '1969-12-31T23:59:59Z')).toEqual(['a', 'b', 'c']);
  });

  test('the repository: plain comments of readable units, oldest first, in pages, with the total', async () => {
    const repoId = 23;
    const here = (userId: number, more: Partial<ScopeOptions> = {}) => scope({ userId, repoId, ...more });
    const issue = await insertIssue({ repoId });
    const pull = await insertIssue({ repoId, isPull: true });
    const bodies: string[] = [];
    for (let n = 0; n < 5; n++) {
      const target = n % 2 === 0 ? issue : pull;
      bodies.push((await comment(target.index, `c${n}`, here(POSTER))).body);
    }
    await h.sql.query("INSERT INTO comments (repo_id, issue_id, type, poster_id, body) VALUES ($1, $2, 7, $3, 'not plain')", [repoId, issue.id, POSTER]);

    const all = await h.comments.listRepoComments({ scope: here(0), page: { page: 1, limit: 2 } });
    expect(all.total).toBe(5);
    expect(all.comments.map((x) => x.body)).toEqual(['c0', 'c1']);
    const last = await h.comments.listRepoComments({ scope: here(0), page: { page: 3, limit: 2 } });
    expect(last.comments.map((x) => x.body)).toEqual(['c4']);
    const everything = await h.comments.listRepoComments({ scope: here(0) });
    expect(everything.comments.map((x) => x.body)).toEqual(bodies);

    const issuesOnly = await h.comments.listRepoComments({ scope: here(0, { units: ['repo.issues'] }) });
    expect([issuesOnly.total, issuesOnly.comments.map((x) => x.body)]).toEqual([3, ['c0', 'c2', 'c4']]);
    const pullsOnly = await h.comments.listRepoComments({ scope: here(0, { units: ['repo.pulls'] }) });
    expect(pullsOnly.comments.map((x) => x.body)).toEqual(['c1', 'c3']);
    await expect(h.comments.listRepoComments({ scope: here(0, { units: ['repo.code'] }) })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await expect(h.comments.listRepoComments({ scope: here(0, { mode: 'none' }) })).rejects.toMatchObject({ code: Code.NOT_FOUND });

    const since = await h.comments.listRepoComments({ scope: here(0), since: new Date(Date.now() + 3_600_000) });
    expect([since.total, since.comments]).toEqual([0, []]);
  });

  test('batch: plain comments by id, unknown ids left out', async () => {
    const issue = await insertIssue();
    const a = await comment(issue.index, 'a');
    const b = await comment(issue.index, 'b');
    const { comments } = await h.comments.batchGetComments({ ids: [b.id, a.id, 987654, -1, a.id] });
    expect(comments.map((x) => x.id)).toEqual([a.id, b.id]);
  });
});
