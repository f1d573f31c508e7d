/**
 * ImportService's pull requests and reviews on a real database (git-storage and repos faked): imported pull requests
 * keep the source's numbers, states, merged fields and original authors and read back through PullService like any
 * other; open ones are checked once; reviews keep their state, body, commit, official flag, submitted time and code
 * comments (signed lines, the patch cut from the pull request's diff). The same batches sent twice add nothing, and
 * no event is written.
 */
import type { ImportedPullRequest, ImportedReview } from '@cairn/proto/cairn/issues/v1/import_service';
import { Code } from '@cairn/rpc';
import { SHA, configuredRepo, failure, startPullFixture, type FakeRepo, type PullFixture } from './pull-fixture';

let fixture: PullFixture;
let repo: FakeRepo;

beforeAll(async () => {
  fixture = await startPullFixture();
  repo = configuredRepo(fixture.git);
});
afterAll(async () => {
  await fixture.stop();
});

const DOER = 9;
const ALICE = 3;
const t = (iso: string) => new Date(iso);

const DIFF = ['diff --git a/src/a.txt b/src/a.txt', 'index 1111111..2222222 100644', '--- a/src/a.txt', '+++ b/src/a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+TWO', ' three', ''].join('\n');

function pull(index: number, fields: Partial<ImportedPullRequest> & { closed?: boolean; poster?: 'alice' | 'carol' } = {}): ImportedPullRequest {
  const { closed = false, poster = 'alice', ...rest } = fields;
  return {
    issue: {
      index,
      poster: poster === 'alice' ? { userId: ALICE, originalAuthor: '', originalAuthorId: 0 } : { userId: DOER, originalAuthor: 'carol', originalAuthorId: 42 },
      title: `Pull ${index}`,
      body: `body ${index}`,
      ref: '',
      isClosed: closed,
      isLocked: false,
      created: t('2024-05-01T10:00:00Z'),
      updated: t('2024-05-02T10:00:00Z'),
      closed: closed ? t('2024-05-02T09:00:00Z') : undefined,
      labels: [],
      milestone: '',
      assigneeIds: [],
    },
    baseBranch: 'main',
    headBranch: 'feature',
    headCommitId: SHA(repo.id * 10 + 1),
    mergeBase: SHA(repo.id * 10),
    merged: false,
    mergeCommitId: '',
    mergerId: DOER,
    ...rest,
  };
}

function pulls(): ImportedPullRequest[] {
  return [
    pull(4),
    pull(5, { closed: true, merged: true, mergedAt: t('2024-05-02T09:00:00Z'), mergeCommitId: SHA(77), headBranch: 'done' }),
    pull(6, { closed: true, poster: 'carol', headBranch: 'gone', headCommitId: '' }),
  ];
}

function reviews(): ImportedReview[] {
  const carol = { userId: DOER, originalAuthor: 'carol', originalAuthorId: 42 };
  return [
    { pullIndex: 4, sourceId: 900, reviewer: { userId: ALICE, originalAuthor: '', originalAuthorId: 0 }, state: 'APPROVED', body: 'lgtm', commitId: SHA(1), official: true, submitted: t('2024-05-01T12:00:00Z'), comments: [] },
    {
      pullIndex: 4,
      sourceId: 901,
      reviewer: carol,
      state: 'REQUEST_CHANGES',
      body: 'fix it',
      commitId: SHA(1),
      official: false,
      submitted: t('2024-05-01T13:00:00Z'),
      comments: [
        { body: 'why two?', path: './src/../src/a.txt', line: -2, commitId: SHA(1), patch: '', created: t('2024-05-01T13:00:00Z'), updated: t('2024-05-01T13:00:00Z') },
        { body: 'TWO!', path: 'src/a.txt', line: 2, commitId: 'not-a-sha', patch: '', created: t('2024-05-01T13:01:00Z'), updated: t('2024-05-01T13:01:00Z') },
      ],
    },
    { pullIndex: 4, sourceId: 902, reviewer: carol, state: 'COMMENT', body: 'a thought', commitId: SHA(1), official: false, submitted: t('2024-05-01T14:00:00Z'), comments: [] },
    { pullIndex: 4, sourceId: 903, reviewer: carol, state: 'PENDING', body: 'draft', commitId: SHA(1), official: false, submitted: t('2024-05-01T15:00:00Z'), comments: [] },
  ];
}

async function snapshot(): Promise<unknown> {
  const q = async (text: string) => (await fixture.harness.sql.query(text, [repo.id])).rows;
  return {
    issues: await q('SELECT index, is_pull, is_closed, poster_id, original_author FROM issues WHERE repo_id = $1 ORDER BY index'),
    pulls: await q('SELECT i.index, p.* FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = $1 ORDER BY i.index'),
    reviews: await q('SELECT id, source_id, type, reviewer_id, original_author FROM reviews WHERE repo_id = $1 ORDER BY id'),
    comments: await q('SELECT id, type, review_id, tree_path, line FROM comments WHERE repo_id = $1 ORDER BY id'),
    counts: await q('SELECT is_pull, is_closed, n FROM issue_counts WHERE repo_id = $1 ORDER BY is_pull, is_closed'),
  };
}

test('imports pull requests and reviews as the source had them; the same batches again add nothing and publish nothing', async () => {
  fixture.git.diffs.set(repo.id, DIFF);
  const seq = await fixture.harness.lastSeq();
  const first = await fixture.harness.imports.importPullRequests({ repoId: repo.id, pulls: pulls() });
  expect(first.created).toBe(3);
  expect(first.pulls.map((row) => row.index)).toEqual([4, 5, 6]);
  const firstReviews = await fixture.harness.imports.importReviews({ repoId: repo.id, reviews: reviews() });
  expect(firstReviews.created).toBe(3);
  expect(firstReviews.reviews.find((row) => row.sourceId === 903)?.id).toBe(0);
  const before = await snapshot();

  const again = await fixture.harness.imports.importPullRequests({ repoId: repo.id, pulls: pulls() });
  expect(again).toEqual({ pulls: first.pulls, created: 0 });
  const reviewsAgain = await fixture.harness.imports.importReviews({ repoId: repo.id, reviews: reviews() });
  expect(reviewsAgain).toEqual({ reviews: firstReviews.reviews, created: 0 });
  expect(await snapshot()).toEqual(before);
  expect(await fixture.harness.outbox(seq)).toEqual([]);

  const scope = repo.scopeOf(ALICE, 'read');
  const open = (await fixture.pulls.getPull({ scope, index: 4 })).pull;
  // Checked once: the fake git-storage answers "mergeable".
  expect(open).toMatchObject({ headBranch: 'feature', baseBranch: 'main', headCommitId: SHA(repo.id * 10 + 1), status: 'mergeable', hasMerged: false });
  expect(open?.issue).toMatchObject({ index: 4, isPull: true, isClosed: false, posterId: ALICE, title: 'Pull 4' });
  const merged = (await fixture.pulls.getPull({ scope, index: 5 })).pull;
  expect(merged).toMatchObject({ hasMerged: true, mergedAt: t('2024-05-02T09:00:00Z'), mergedCommitId: SHA(77), mergerId: DOER, headBranch: 'done', status: 'mergeable' });
  const closed = (await fixture.pulls.getPull({ scope, index: 6 })).pull;
  expect(closed).toMatchObject({ hasMerged: false, headBranch: 'gone', headCommitId: '', status: 'checking', mergedCommitId: '', mergerId: 0 });
  expect(closed?.issue).toMatchObject({ isClosed: true, posterId: DOER, originalAuthor: 'carol', originalAuthorId: 42 });

  const { reviews: listed } = await fixture.reviews.listReviews({ scope, index: 4 });
  expect(listed.map((review) => [review.state, review.body, review.reviewerId, review.official, review.submitted])).toEqual([
    ['APPROVED', 'lgtm', ALICE, true, t('2024-05-01T12:00:00Z')],
    ['REQUEST_CHANGES', 'fix it', DOER, false, t('2024-05-01T13:00:00Z')],
    ['COMMENT', 'a thought', DOER, false, t('2024-05-01T14:00:00Z')],
  ]);
  const { comments } = await fixture.reviews.listReviewComments({ scope, index: 4, id: listed[1].id });
  expect(comments.map((c) => [c.path, c.position, c.originalPosition, c.commitId, c.body])).toEqual([
    ['src/a.txt', 0, 2, SHA(1), 'why two?'],
    // An invalid commit id takes the pull request's head (Gitea's CreateReviews).
    ['src/a.txt', 2, 0, SHA(repo.id * 10 + 1), 'TWO!'],
  ]);
  expect(comments[0].diffHunk).toBe('@@ -1,3 +1,3 @@\n one\n-two');
  expect(comments[1].diffHunk).toBe('@@ -1,3 +1,3 @@\n one\n-two\n+TWO');
  // The next pull request or issue number comes after the imported ones.
  const { rows } = await fixture.harness.sql.query('SELECT max_index FROM repo_issue_index WHERE repo_id = $1', [repo.id]);
  expect(rows[0]).toEqual({ max_index: '6' });
});

test('bad input is refused with a clear reason', async () => {
  const refused = await failure(fixture.harness.imports.importPullRequests({ repoId: repo.id, pulls: [pull(8, { baseBranch: ' ' })] }));
  expect([refused.code, refused.reason]).toEqual([Code.INVALID_ARGUMENT, 'base_branch_required']);
  const noNumber = await failure(fixture.harness.imports.importPullRequests({ repoId: repo.id, pulls: [{ ...pull(8), issue: undefined }] }));
  expect([noNumber.code, noNumber.reason]).toEqual([Code.INVALID_ARGUMENT, 'issue_index_required']);
  const [review] = reviews();
  const unknownPull = await failure(fixture.harness.imports.importReviews({ repoId: repo.id, reviews: [{ ...review, pullIndex: 99, sourceId: 990 }] }));
  expect([unknownPull.code, unknownPull.reason]).toEqual([Code.FAILED_PRECONDITION, 'pull_not_imported']);
  const noSource = await failure(fixture.harness.imports.importReviews({ repoId: repo.id, reviews: [{ ...review, sourceId: 0 }] }));
  expect([noSource.code, noSource.reason]).toEqual([Code.INVALID_ARGUMENT, 'review_source_required']);
});
