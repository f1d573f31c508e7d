/**
 * The `issues-commit-refs` consumer (events/commit-refs-consumer.ts) on a real database and bus: pushed commits that
 * name issues leave commit_ref entries, and close or reopen issues after keywords on the default branch or the
 * issue's own branch, as the pusher may.
 */
import { Commit } from '@cairn/proto/cairn/git/v1/git_service';
import { CreateIssueRequest, EditIssueRequest, type TimelineEntry } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CreatePullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { FakeGitRepos } from './fake-git-repos';
import { publishPush as publishPushed, readUntil, type ServiceHarness } from './harness';
import { configuredRepo, createPull, type FakeRepo as Repo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const ALICE = 11; // writes the repository (the fake's default answer: admin)
const BOB = 12; // posts the issues
const CAROL = 13; // reads only

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake } = fixture);
});

afterAll(() => fixture.stop());

beforeEach(() => fake.reset());

async function newIssue(repo: Repo, title: string, posterId = BOB, ref = ''): Promise<number> {
  return (await h.issues.createIssue(CreateIssueRequest.fromPartial({ scope: repo.scopeOf(posterId), title, ref }))).issue?.index ?? 0;
}

const publishPush = (repoId: number, branch: string, pusherId: number, oldSha = SHA(1)) =>
  publishPushed(h.bus, { repoId, pusherId, ref: `refs/heads/${branch}`, oldSha, newSha: SHA(2) });

/** Waits until the consumer recorded the event as handled. */
async function handled(eventId: string): Promise<void> {
  await readUntil(
    async () => (await h.sql.query("SELECT 1 FROM cairn_processed_events WHERE consumer = 'issues-commit-refs' AND event_id = $1", [eventId])).rowCount ?? 0,
    (count) => count > 0,
  );
}

async function states(repoId: number): Promise<Record<number, boolean>> {
  const { rows } = await h.sql.query<{ index: string; is_closed: boolean }>('SELECT index, is_closed FROM issues WHERE repo_id = $1', [repoId]);
  return Object.fromEntries(rows.map((row) => [Number(row.index), row.is_closed]));
}

async function entries(repo: Repo, index: number): Promise<TimelineEntry[]> {
  return (await h.comments.listTimeline({ scope: repo.scopeOf(ALICE), index })).entries;
}

const commit = (n: number, message: string) => Commit.fromPartial({ sha: SHA(n), message });

describe('commits that name issues', () => {
  it('link the commit on every named issue, close and reopen after keywords on the default branch or the issue branch', async () => {
    const repo = configuredRepo(fake);
    const fixed = await newIssue(repo, 'fixed');
    const mentioned = await newIssue(repo, 'mentioned');
    const onRelease = await newIssue(repo, 'on release', BOB, 'refs/heads/release');
    const closed = await newIssue(repo, 'closed');
    await h.issues.editIssue(EditIssueRequest.fromPartial({ scope: repo.scopeOf(BOB), index: closed, fields: ['state'], state: 'closed' }));
    const pull = (await createPull(fixture, CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'feature', baseBranch: 'main', title: 'P' })))
      .issue?.index ?? 0;
    // ListCommitsBetween answers newest first.
    fake.pullCommits = [
      commit(902, `Refs #${mentioned}, closes #${onRelease} and closes #${pull}\n\nreopens #${closed}, fixes nobody/missing#1`),
      commit(901, `Fixes #${fixed} <now>\n\nmore`),
    ];

    await handled(await publishPush(repo.id, 'main', ALICE));
    expect(await states(repo.id)).toEqual({ [fixed]: true, [mentioned]: false, [onRelease]: false, [closed]: false, [pull]: false });
    const fixedEntries = await entries(repo, fixed);
    expect(fixedEntries.filter((entry) => entry.type === 4)).toEqual([
      expect.objectContaining({ posterId: ALICE, refCommitSha: SHA(901), body: `<a href="/owner100/repo${repo.id}/commit/${SHA(901)}">Fixes #${fixed} &lt;now&gt;</a>` }),
    ]);
    expect(fixedEntries.at(-1)).toMatchObject({ type: 2, posterId: ALICE });
    expect((await entries(repo, mentioned)).map((entry) => [entry.type, entry.refCommitSha])).toEqual([[4, SHA(902)]]);
    expect((await entries(repo, pull)).filter((entry) => entry.type === 4)).toHaveLength(1);
    expect((await entries(repo, closed)).at(-1)).toMatchObject({ type: 1, posterId: ALICE });

    // The same commits reaching the issue's own branch close it there; each commit is linked once only.
    await handled(await publishPush(repo.id, 'release', ALICE));
    expect(await states(repo.id)).toMatchObject({ [onRelease]: true, [pull]: false });
    expect((await entries(repo, fixed)).filter((entry) => entry.type === 4)).toHaveLength(1);
    expect((await entries(repo, mentioned)).filter((entry) => entry.type === 4)).toHaveLength(1);
  });

  it("keep a private repository's commits off other repositories' timelines, while their keywords still act", async () => {
    const secret = configuredRepo(fake, { private: true });
    const open = configuredRepo(fake);
    const target = await newIssue(open, 'target');
    const local = await newIssue(secret, 'local');
    fake.pullCommits = [commit(904, `Fixes owner100/repo${open.id}#${target}, refs #${local}`)];
    await handled(await publishPush(secret.id, 'main', ALICE));
    expect(await states(open.id)).toEqual({ [target]: true });
    expect((await entries(open, target)).map((entry) => entry.type)).toEqual([2]);
    expect((await entries(secret, local)).map((entry) => entry.type)).toEqual([4]);
  });

  it('let a reader close only the issues they posted, and read nothing of a new default branch', async () => {
    const repo = configuredRepo(fake);
    const reader = repo.scopeOf(CAROL, 'read').repository;
    if (reader !== undefined) fake.repositories.set(`${CAROL}:${repo.id}`, reader);
    const theirs = await newIssue(repo, 'theirs', BOB);
    const own = await newIssue(repo, 'own', CAROL);
    fake.pullCommits = [commit(903, `fixes #${theirs}, fixes #${own}`)];

    await handled(await publishPush(repo.id, 'main', CAROL, '0'.repeat(40)));
    expect(await states(repo.id)).toEqual({ [theirs]: false, [own]: false });
    expect((await entries(repo, theirs)).filter((entry) => entry.type === 4)).toEqual([]);

    await handled(await publishPush(repo.id, 'main', CAROL));
    expect(await states(repo.id)).toEqual({ [theirs]: false, [own]: true });
    expect((await entries(repo, theirs)).map((entry) => entry.type)).toEqual([4]);
  });
});
