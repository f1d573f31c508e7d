/**
 * Merges whose record failed after git-storage moved the base branch, and mergeability checks that overlap: the
 * merge's intent is settled by a retry or by the next check (one merge commit, one merged event, one merge_pull
 * entry), an intent whose merge never moved the base branch is dropped so the retry merges, and of two checks of one
 * pull request the one started later (for the newer head) is the one that stays.
 *
 * The fault is the database's own: a trigger refusing the update that marks the pull request merged, as a
 * database that fails between git's merge and its record would.
 */
import { CheckPullRequest, CreatePullRequest, MergePullRequest, type PullRequest, type PullServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { CairnError, Code, type RpcClient } from '@cairn/rpc';
import type { FakeGitRepos } from './fake-git-repos';
import { readUntil, type ServiceHarness } from './harness';
import { configuredRepo, createPull, failure, type FakeRepo, type PullFixture, SHA, startPullFixture } from './pull-fixture';

const ALICE = 11; // writer, the merger
const BOB = 12; // the poster

let fixture: PullFixture;
let h: ServiceHarness;
let fake: FakeGitRepos;
let pulls: RpcClient<typeof PullServiceService>;

beforeAll(async () => {
  fixture = await startPullFixture();
  ({ harness: h, git: fake, pulls } = fixture);
});

afterAll(() => fixture.stop());

beforeEach(() => fake.reset());

afterEach(() => h.sql.query('DROP TRIGGER IF EXISTS fail_merge_record ON pull_requests'));

/** From now on, marking a pull request merged fails (until healMergeRecord). */
async function breakMergeRecord(): Promise<void> {
  await h.sql.query(`
    CREATE OR REPLACE FUNCTION fail_merge_record() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'injected fault: the merge record fails'; END $$`);
  await h.sql.query(`
    CREATE TRIGGER fail_merge_record BEFORE UPDATE OF has_merged ON pull_requests
    FOR EACH ROW WHEN (NEW.has_merged AND NOT OLD.has_merged) EXECUTE FUNCTION fail_merge_record()`);
}

async function healMergeRecord(): Promise<void> {
  await h.sql.query('DROP TRIGGER fail_merge_record ON pull_requests');
}

/** A pull request from feature into main, opened and checked once by the consumer of its opened event. */
async function openChecked(repo: FakeRepo): Promise<number> {
  const seq = await h.lastSeq();
  const pull: PullRequest = await createPull(
    fixture,
    CreatePullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), headBranch: 'feature', baseBranch: 'main', title: 'Add feature', body: '' }),
  );
  const opened = (await h.outbox(seq)).find((event) => event.subject === 'cairn.pull_request.opened');
  await readUntil(
    async () => (await h.sql.query("SELECT 1 FROM cairn_processed_events WHERE consumer = 'issues-pulls' AND event_id = $1", [opened?.id])).rowCount ?? 0,
    (count) => count > 0,
  );
  return pull.issue?.index ?? 0;
}

const mergeRequest = (repo: FakeRepo, index: number): MergePullRequest =>
  MergePullRequest.fromPartial({ scope: repo.scopeOf(ALICE, 'write'), index, style: 'merge', mergerName: 'Alice', mergerEmail: 'alice@example.com' });

/** What the database holds of the merge: the row, merged events and merge_pull entries of the pull request. */
async function recorded(repoId: number, index: number): Promise<{ merged: boolean; commitId: string; events: number; entries: number; intents: number }> {
  const { rows } = await h.sql.query<{ id: string; has_merged: boolean; merged_commit_id: string }>(
    'SELECT i.id, p.has_merged, p.merged_commit_id FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = $1 AND i.index = $2',
    [repoId, index],
  );
  const [{ id, has_merged: merged, merged_commit_id: commitId }] = rows;
  const events = (await h.outbox()).filter((event) => event.subject === 'cairn.pull_request.merged' && Buffer.from(event.data).includes(Buffer.from(commitId || 'none')));
  const entries = await h.sql.query('SELECT 1 FROM comments WHERE issue_id = $1 AND type = 28', [id]);
  const intents = await h.sql.query('SELECT 1 FROM pull_merge_intents WHERE issue_id = $1', [id]);
  return { merged, commitId, events: events.length, entries: entries.rowCount ?? 0, intents: intents.rowCount ?? 0 };
}

describe('a merge whose record failed', () => {
  it('is finished by the retry: the commit git made, one merge, one merged event and entry', async () => {
    const repo = configuredRepo(fake, { allowMergeCommits: true });
    const index = await openChecked(repo);
    await breakMergeRecord();
    await failure(pulls.mergePull(mergeRequest(repo, index)));
    const mergeCommit = fake.tip(repo.id, 'main');
    expect(fake.merges).toHaveLength(1);
    expect(await recorded(repo.id, index)).toMatchObject({ merged: false, intents: 1 });

    await healMergeRecord();
    const { pull } = await pulls.mergePull(mergeRequest(repo, index));
    expect(pull).toMatchObject({ hasMerged: true, mergedCommitId: mergeCommit, mergerId: ALICE, issue: { isClosed: true } });
    expect(fake.merges).toHaveLength(1);
    expect(fake.tip(repo.id, 'main')).toBe(mergeCommit);
    expect(await recorded(repo.id, index)).toEqual({ merged: true, commitId: mergeCommit, events: 1, entries: 1, intents: 0 });
    // Merged now, so merging again is Gitea's 405.
    expect((await failure(pulls.mergePull(mergeRequest(repo, index)))).message).toBe('The PR is already merged');
  });

  it('is finished by the next mergeability check', async () => {
    const repo = configuredRepo(fake, { allowMergeCommits: true });
    const index = await openChecked(repo);
    await breakMergeRecord();
    await failure(pulls.mergePull(mergeRequest(repo, index)));
    const mergeCommit = fake.tip(repo.id, 'main');

    await healMergeRecord();
    const { pull } = await pulls.checkPull(CheckPullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), index }));
    expect(pull).toMatchObject({ hasMerged: true, mergedCommitId: mergeCommit, mergerId: ALICE });
    expect(fake.merges).toHaveLength(1);
    expect(await recorded(repo.id, index)).toEqual({ merged: true, commitId: mergeCommit, events: 1, entries: 1, intents: 0 });
  });

  it('is dropped when git never moved the base branch, and the retry merges', async () => {
    const repo = configuredRepo(fake, { allowMergeCommits: true });
    const index = await openChecked(repo);
    const before = fake.tip(repo.id, 'main');
    // git-storage went away mid-call: whether it merged is unknown until the base branch is read.
    fake.mergeError = new CairnError(Code.UNAVAILABLE, 'git-storage is down');
    expect((await failure(pulls.mergePull(mergeRequest(repo, index)))).code).toBe(Code.UNAVAILABLE);
    expect(fake.tip(repo.id, 'main')).toBe(before);
    expect(await recorded(repo.id, index)).toMatchObject({ merged: false, intents: 1 });

    fake.mergeError = undefined;
    const { pull } = await pulls.mergePull(mergeRequest(repo, index));
    expect(fake.merges).toHaveLength(2);
    expect(pull).toMatchObject({ hasMerged: true, mergedCommitId: fake.tip(repo.id, 'main') });
    expect(await recorded(repo.id, index)).toMatchObject({ merged: true, events: 1, entries: 1, intents: 0 });
  });
});

describe('overlapping mergeability checks', () => {
  it('keep the head and status of the check that read the newest head', async () => {
    const repo = configuredRepo(fake, { allowMergeCommits: true });
    const index = await openChecked(repo);
    const check = () => pulls.checkPull(CheckPullRequest.fromPartial({ scope: repo.scopeOf(BOB, 'read'), index }));

    // The first check reads the head branch's tip, then stalls before copying it.
    const hold = fake.holdNextSync();
    const first = check();
    await hold.reached;
    // Meanwhile the branch moves and conflicts now, and a second check is asked for.
    fake.setBranch(repo.id, 'feature', SHA(9001));
    fake.mergeStatus = 'conflict';
    fake.conflictedFiles = ['a.txt'];
    const second = check();
    // The second check either ran to its end, or waits for the first: for the pull request's lock (store/merge-intents.ts).
    let secondDone = false;
    void second.then(() => (secondDone = true));
    await readUntil(
      async () =>
        secondDone ||
        ((
          await h.sql.query(
            `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            [0x0ca19e],
          )
        ).rowCount ?? 0) > 0,
      (ready) => ready,
    );
    hold.release();
    await Promise.all([first, second]);

    const { rows } = await h.sql.query<{ head_commit_id: string; status: string; conflicted_files: string[] }>(
      'SELECT p.head_commit_id, p.status, p.conflicted_files FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = $1 AND i.index = $2',
      [repo.id, index],
    );
    expect(rows[0]).toEqual({ head_commit_id: SHA(9001), status: 'conflict', conflicted_files: ['a.txt'] });
    expect(fake.heads.get(`${repo.id}:${index}`)).toBe(SHA(9001));
  });
});
