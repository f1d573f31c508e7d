/**
 * ImportService on a real database: a migrated repository's labels, milestones, issues (source numbers, times,
 * original authors, labels by name, milestone by title, assignees, locked) and comments (keyed by their source ids).
 * The same batches sent twice leave the same rows; counters (issue counts, milestone counts, comment counts) follow by
 * trigger; the next issue number comes after the imported ones; no event is written.
 */
import { Code } from '@cairn/rpc';
import { scope, startService, type ServiceHarness } from './harness';

let harness: ServiceHarness;

beforeAll(async () => {
  harness = await startService();
});
afterAll(async () => {
  await harness.stop();
});

const REPO = 501;
const DOER = 9;
const ALICE = 3;
const t = (iso: string) => new Date(iso);

async function importAll(): Promise<{ commentIds: number[] }> {
  await harness.imports.importLabels({
    repoId: REPO,
    labels: [
      { name: 'bug', color: 'ee0701', description: 'broken', exclusive: false },
      { name: 'scope/ui', color: '#00AABB', description: '', exclusive: true },
    ],
  });
  await harness.imports.importMilestones({
    repoId: REPO,
    milestones: [
      { title: 'v1', description: 'first', deadline: t('2030-01-01T00:00:00Z'), created: t('2024-01-01T00:00:00Z'), updated: t('2024-01-02T00:00:00Z'), isClosed: false },
      { title: 'v0', description: '', created: t('2023-01-01T00:00:00Z'), updated: t('2023-02-01T00:00:00Z'), closed: t('2023-03-01T00:00:00Z'), isClosed: true },
    ],
  });
  await harness.imports.importIssues({
    repoId: REPO,
    issues: [
      {
        index: 3,
        poster: { userId: ALICE, originalAuthor: '', originalAuthorId: 0 },
        title: 'Crash',
        body: 'It crashes.',
        ref: '',
        isClosed: false,
        isLocked: true,
        created: t('2024-02-01T10:00:00Z'),
        updated: t('2024-02-02T10:00:00Z'),
        labels: ['bug', 'unknown'],
        milestone: 'v1',
        assigneeIds: [ALICE],
      },
      {
        index: 7,
        poster: { userId: DOER, originalAuthor: 'carol', originalAuthorId: 42 },
        title: 'Typo',
        body: '',
        ref: '',
        isClosed: true,
        isLocked: false,
        created: t('2024-03-01T10:00:00Z'),
        updated: t('2024-03-02T10:00:00Z'),
        closed: t('2024-03-02T09:00:00Z'),
        labels: [],
        milestone: 'v1',
        assigneeIds: [],
      },
    ],
  });
  const { comments } = await harness.imports.importComments({
    repoId: REPO,
    comments: [
      { issueIndex: 3, sourceId: 100, poster: { userId: ALICE, originalAuthor: '', originalAuthorId: 0 }, body: 'first', created: t('2024-02-01T11:00:00Z'), updated: t('2024-02-01T11:00:00Z') },
      { issueIndex: 3, sourceId: 101, poster: { userId: DOER, originalAuthor: 'carol', originalAuthorId: 42 }, body: 'second', created: t('2024-02-01T12:00:00Z'), updated: t('2024-02-01T12:00:00Z') },
    ],
  });
  return { commentIds: comments.map((c) => c.id).sort() };
}

async function snapshot(): Promise<unknown> {
  const q = async (text: string) => (await harness.sql.query(text, [REPO])).rows;
  return {
    labels: await q('SELECT name, color, description, exclusive FROM labels WHERE repo_id = $1 ORDER BY name'),
    milestones: await q('SELECT title, is_closed, num_issues, num_closed_issues, created, updated, closed_at, due_on FROM milestones WHERE repo_id = $1 ORDER BY title'),
    issues: await q(`SELECT i.index, i.poster_id, i.original_author, i.original_author_id, i.title, i.is_closed, i.is_locked, i.created, i.closed_at,
                            i.num_comments, m.title AS milestone,
                            (SELECT array_agg(l.name ORDER BY l.name) FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id) AS labels,
                            (SELECT array_agg(assignee_id) FROM issue_assignees a WHERE a.issue_id = i.id) AS assignees
                     FROM issues i LEFT JOIN milestones m ON m.id = i.milestone_id WHERE i.repo_id = $1 ORDER BY i.index`),
    comments: await q('SELECT source_id, poster_id, original_author, original_author_id, body, created FROM comments WHERE repo_id = $1 ORDER BY source_id'),
    counts: await q('SELECT is_closed, n FROM issue_counts WHERE repo_id = $1 ORDER BY is_closed'),
    index: await q('SELECT max_index FROM repo_issue_index WHERE repo_id = $1'),
  };
}

test('imports items with their numbers, times and original authors; a second import of the same batches changes nothing', async () => {
  const seq = await harness.lastSeq();
  const first = await importAll();
  const before = await snapshot();
  expect(before).toMatchObject({
    labels: [
      { name: 'bug', color: 'ee0701', exclusive: false },
      { name: 'scope/ui', color: '00aabb', exclusive: true },
    ],
    milestones: [
      { title: 'v0', is_closed: true, num_issues: 0, closed_at: t('2023-03-01T00:00:00Z') },
      { title: 'v1', is_closed: false, num_issues: 2, num_closed_issues: 1, created: t('2024-01-01T00:00:00Z'), due_on: t('2030-01-01T00:00:00Z') },
    ],
    issues: [
      { index: '3', poster_id: String(ALICE), original_author: '', title: 'Crash', is_locked: true, num_comments: 2, milestone: 'v1', labels: ['bug'], assignees: [String(ALICE)], created: t('2024-02-01T10:00:00Z') },
      { index: '7', poster_id: String(DOER), original_author: 'carol', original_author_id: '42', is_closed: true, closed_at: t('2024-03-02T09:00:00Z'), num_comments: 0, labels: null },
    ],
    comments: [
      { source_id: '100', poster_id: String(ALICE), original_author: '', body: 'first' },
      { source_id: '101', poster_id: String(DOER), original_author: 'carol', original_author_id: '42', body: 'second' },
    ],
    counts: [
      { is_closed: false, n: '1' },
      { is_closed: true, n: '1' },
    ],
    index: [{ max_index: '7' }],
  });

  // A resumed import sends everything again: the same rows, the same comment ids answered.
  const second = await importAll();
  expect(second.commentIds).toEqual(first.commentIds);
  expect(await snapshot()).toEqual(before);
  // No event per migrated item.
  expect(await harness.outbox(seq)).toEqual([]);

  // The next issue made here is numbered after the imported ones.
  const { issue } = await harness.issues.createIssue({ scope: scope({ userId: ALICE, mode: 'write', repoId: REPO }), title: 'new', body: '', ref: '', labelIds: [], assigneeIds: [], milestoneId: 0, closed: false });
  expect(issue?.index).toBe(8);
});

test('a comment on an issue not imported and a bad label colour are refused', async () => {
  await expect(
    harness.imports.importComments({
      repoId: REPO + 1,
      comments: [{ issueIndex: 1, sourceId: 1, poster: { userId: ALICE, originalAuthor: '', originalAuthorId: 0 }, body: 'x' }],
    }),
  ).rejects.toMatchObject({ code: Code.FAILED_PRECONDITION });
  await expect(harness.imports.importLabels({ repoId: REPO, labels: [{ name: 'bad', color: 'zz', description: '', exclusive: false }] })).rejects.toMatchObject({
    code: Code.INVALID_ARGUMENT,
  });
});
