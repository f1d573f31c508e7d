/**
 * Pull requests that cannot simply be merged, end to end on the built supervisor: a conflicting pull request refused
 * in every merge style with Gitea's 405 `Please try again later`; a fast-forward-only merge of a diverged (clean)
 * branch and rebases whose later commit conflicts answered 409 — the base branch never moving; required status
 * checks until a success status is posted on the head; `block_admin_merge_override` keeping an admin's force_merge
 * out; the squashed commit's author (the poster) and Gitea's co-author trailers; and a manual merge detected on
 * push, recorded with its merge commit, its author as the merger and its time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Pull, type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

const STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'] as const;

interface MergedPull extends Pull {
  merged_at: string | null;
}

describe('pull requests that conflict or wait', () => {
  let fixture: Fixture;
  let w: PullWork;
  /** alice's clone of alice/demo. */
  let work: string;

  const alice = () => fixture.as('alice');
  const carol = () => fixture.as('carol');

  const call: PullWork['call'] = (...args) => w.call(...args);
  const gitOk = (args: string[]) => w.gitOk(args, work);
  const mainHead = () => w.branchHead('alice/demo', 'main', alice());
  const createPull = (head: string, title: string, headers = alice()) => w.createPull('alice/demo', head, title, headers);
  const settled = (index: number, want: (pull: Pull) => boolean) => w.settled('alice/demo', index, alice(), want);
  const merge = (index: number, body: Record<string, unknown>, headers = alice()) =>
    call<{ message: string }>('POST', `/repos/alice/demo/pulls/${index}/merge`, headers, body);

  /** A commit writing `file` on origin's main, pushed. */
  async function moveMain(file: string, text: string): Promise<string> {
    return w.pushToBranch(work, 'main', file, text);
  }

  /** A branch from origin's main with one commit per file, pushed; its head. */
  async function pushCommits(name: string, files: ReadonlyArray<[string, string]>): Promise<string> {
    await gitOk(['fetch', '--quiet', 'origin']);
    await gitOk(['checkout', '--quiet', '-B', name, 'origin/main']);
    let head = '';
    for (const [file, text] of files) head = await w.commitFile(work, file, text);
    await gitOk(['push', '--quiet', 'origin', `${name}:${name}`]);
    return head;
  }

  /** A commit of `file` on the checked-out branch with another author than the workspace's. */
  async function commitAs(author: string, file: string, text: string): Promise<void> {
    fs.writeFileSync(path.join(work, file), text);
    await gitOk(['add', '--', file]);
    await gitOk(['commit', '--quiet', '--author', author, '--message', `${file} by ${author}`]);
  }

  /** `git log -1` of origin's main in `format`. */
  async function mainLog(format: string): Promise<string> {
    await gitOk(['fetch', '--quiet', 'origin']);
    return gitOk(['log', '-1', `--format=${format}`, 'origin/main']);
  }

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls_conflicts', ['alice', 'carol']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture, ['carol']);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it.each(STYLES)("refuses a conflicting pull request merged by %s with Gitea's 405 `Please try again later`", async (style) => {
    await w.pushBranch(work, `conflict-${style}`, `conflict-${style}.txt`, 'from the branch\n');
    // main writes the same file meanwhile.
    await moveMain(`conflict-${style}.txt`, 'from main\n');
    const created = await createPull(`conflict-${style}`, `Conflicts (${style})`);
    const pull = await settled(created.number, (p) => !p.mergeable);
    expect(pull).toMatchObject({ mergeable: false, merged: false, state: 'open' });
    const before = await mainHead();

    const refused = await merge(created.number, { do: style });
    expect(refused).toMatchObject({ status: 405, body: { message: 'Please try again later' } });
    // Not even an administrator's force_merge gets past a conflict.
    expect(await merge(created.number, { do: style, force_merge: true })).toMatchObject({ status: 405, body: { message: 'Please try again later' } });
    expect(await mainHead()).toBe(before);
    expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(404);
  });

  it('answers a fast-forward-only merge of a diverged branch 409, and merges it as a merge commit', async () => {
    const head = await w.pushBranch(work, 'ff-diverged', 'ff-branch.txt', 'branch\n');
    // main moves on another file: no conflict, but no fast-forward either.
    await moveMain('ff-main.txt', 'main\n');
    const created = await createPull('ff-diverged', 'Diverged');
    await settled(created.number, (p) => p.mergeable);
    const before = await mainHead();

    const refused = await merge(created.number, { do: 'fast-forward-only' });
    expect(refused).toMatchObject({ status: 409, body: { message: 'Not possible to fast-forward, aborting.' } });
    expect(await mainHead()).toBe(before);
    expect((await settled(created.number, () => true)).merged).toBe(false);

    expect((await merge(created.number, { do: 'merge' })).status).toBe(200);
    const main = await mainHead();
    expect(await mainLog('%P')).toBe(`${before} ${head}`);
    expect((await settled(created.number, (p) => p.merged)).merge_commit_sha).toBe(main);
  });

  it('answers the rebase styles 409 when a later commit of the branch conflicts, while a squash merges it', async () => {
    await moveMain('later.txt', 'line\n');
    // The branch adds a file, then changes later.txt and changes it back: its result touches only its own file.
    await pushCommits('later-conflict', [
      ['later-extra.txt', 'extra\n'],
      ['later.txt', 'from the branch\n'],
      ['later.txt', 'line\n'],
    ]);
    await moveMain('later.txt', 'from main\n');
    const created = await createPull('later-conflict', 'A later commit conflicts');
    await settled(created.number, (p) => p.mergeable);
    const before = await mainHead();

    for (const style of ['rebase', 'rebase-merge']) {
      const refused = await merge(created.number, { do: style });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('later.txt');
      expect(await mainHead()).toBe(before);
    }
    expect((await settled(created.number, () => true)).merged).toBe(false);
    expect((await merge(created.number, { do: 'squash' })).status).toBe(200);
    expect(await mainLog('%P')).toBe(before);
  });

  it('requires the status checks the rule names until a success status is posted on the head', async () => {
    const head = await w.pushBranch(work, 'checked', 'checked.txt', 'needs ci\n');
    const created = await createPull('checked', 'Needs CI');
    await settled(created.number, (p) => p.mergeable);
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), {
      rule_name: 'main',
      enable_push: true,
      enable_status_check: true,
      status_check_contexts: ['ci/build'],
    });
    expect(rule.status).toBe(201);
    try {
      const before = await mainHead();
      expect(await merge(created.number, { do: 'merge' })).toMatchObject({ status: 405, body: { message: 'Not all required status checks successful' } });
      const status = (state: string, context: string) =>
        call('POST', `/repos/alice/demo/statuses/${head}`, alice(), { state, context, target_url: 'https://ci.example.com/1', description: state });
      expect((await status('pending', 'ci/build')).status).toBe(201);
      expect((await status('success', 'ci/other')).status).toBe(201);
      expect(await merge(created.number, { do: 'merge' })).toMatchObject({ status: 405, body: { message: 'Not all required status checks successful' } });
      expect(await mainHead()).toBe(before);
      expect((await status('success', 'ci/build')).status).toBe(201);
      expect((await merge(created.number, { do: 'merge' })).status).toBe(200);
      expect((await call('GET', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(204);
    } finally {
      expect((await call('DELETE', '/repos/alice/demo/branch_protections/main', alice())).status).toBe(204);
    }
  });

  it("keeps an administrator's force_merge out while the rule blocks the admin override", async () => {
    await w.pushBranch(work, 'blocked', 'blocked.txt', 'needs an approval\n');
    const created = await createPull('blocked', 'Needs an approval', carol());
    await settled(created.number, (p) => p.mergeable);
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), {
      rule_name: 'main',
      enable_push: true,
      required_approvals: 1,
      block_admin_merge_override: true,
    });
    expect(rule).toMatchObject({ status: 201, body: { block_admin_merge_override: true } });
    try {
      const before = await mainHead();
      for (const admin of [alice(), fixture.root]) {
        const forced = await merge(created.number, { do: 'merge', force_merge: true }, admin);
        expect(forced).toMatchObject({ status: 405, body: { message: 'Does not have enough approvals' } });
      }
      expect(await mainHead()).toBe(before);
      const edited = await call('PATCH', '/repos/alice/demo/branch_protections/main', alice(), { block_admin_merge_override: false });
      expect(edited).toMatchObject({ status: 200, body: { block_admin_merge_override: false } });
      expect((await merge(created.number, { do: 'merge', force_merge: true })).status).toBe(200);
    } finally {
      expect((await call('DELETE', '/repos/alice/demo/branch_protections/main', alice())).status).toBe(204);
    }
  });

  it("squashes as the poster, as their own commit names them, else by their account, with Gitea's trailers", async () => {
    // carol posts a pull request of alice's commits: carol's account signs the squash.
    await w.pushBranch(work, 'squash-account', 'squash-account.txt', 'by alice\n');
    const byAccount = await createPull('squash-account', 'Squashed for carol', carol());
    await settled(byAccount.number, (p) => p.mergeable);
    expect((await merge(byAccount.number, { do: 'squash' })).status).toBe(200);
    const carolSig = 'carol <carol@example.com>';
    expect(await mainLog('%an <%ae>|%cn <%ce>')).toBe(`${carolSig}|alice <alice@example.com>`);
    expect(await mainLog('%B')).toBe(`Squashed for carol (#${byAccount.number})\nCo-authored-by: ${carolSig}\nCo-committed-by: ${carolSig}`);

    // A commit of the pull request authored with carol's address names her as she commits.
    await gitOk(['checkout', '--quiet', '-B', 'squash-commit', 'origin/main']);
    await w.commitFile(work, 'squash-first.txt', 'by alice\n');
    await commitAs('Carol at home <carol@example.com>', 'squash-commit.txt', 'by carol\n');
    await gitOk(['push', '--quiet', 'origin', 'squash-commit:squash-commit']);
    const byCommit = await createPull('squash-commit', 'Squashed from her commit', carol());
    await settled(byCommit.number, (p) => p.mergeable);
    expect((await merge(byCommit.number, { do: 'squash', merge_message_field: 'details' })).status).toBe(200);
    const homeSig = 'Carol at home <carol@example.com>';
    expect(await mainLog('%an <%ae>|%cn <%ce>')).toBe(`${homeSig}|alice <alice@example.com>`);
    expect(await mainLog('%B')).toBe(`Squashed from her commit (#${byCommit.number})\n\ndetails\nCo-authored-by: ${homeSig}\nCo-committed-by: ${homeSig}`);

    // The poster merging their own pull request, committed as they merge: author and committer agree, no trailers.
    await gitOk(['checkout', '--quiet', '-B', 'squash-own', 'origin/main']);
    await commitAs('alice <alice@example.com>', 'squash-own.txt', 'own\n');
    await gitOk(['push', '--quiet', 'origin', 'squash-own:squash-own']);
    const own = await createPull('squash-own', 'Squashed by its poster');
    await settled(own.number, (p) => p.mergeable);
    expect((await merge(own.number, { do: 'squash' })).status).toBe(200);
    expect(await mainLog('%an <%ae>|%cn <%ce>|%B')).toBe(`alice <alice@example.com>|alice <alice@example.com>|Squashed by its poster (#${own.number})`);
  });

  it('records a manual merge detected on push with its merge commit, its author as the merger and its time', async () => {
    expect((await call('PATCH', '/repos/alice/demo', alice(), { has_pull_requests: true, autodetect_manual_merge: true })).status).toBe(200);
    const head = await w.pushBranch(work, 'by-hand', 'by-hand.txt', 'merged by hand\n');
    const created = await createPull('by-hand', 'Merged by hand');
    await settled(created.number, (p) => p.mergeable);

    // carol's merge commit on main, then one more commit before the push: the merge commit is the one recorded.
    await gitOk(['checkout', '--quiet', '-B', 'main', 'origin/main']);
    await gitOk(['merge', '--quiet', '--no-ff', '--no-commit', 'by-hand']);
    await gitOk(['commit', '--quiet', '--author', 'Carol <carol@example.com>', '--date', '2024-02-03T04:05:06Z', '--message', 'Merge by-hand by hand']);
    const mergeCommit = await gitOk(['rev-parse', 'HEAD']);
    expect((await gitOk(['log', '-1', '--format=%P', mergeCommit])).split(' ')).toEqual([expect.any(String), head]);
    await w.commitFile(work, 'after-merge.txt', 'later\n');
    await gitOk(['push', '--quiet', 'origin', 'main']);

    const merged = (await settled(created.number, (p) => p.merged)) as MergedPull;
    expect(merged).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: mergeCommit, merged_by: { login: 'carol' } });
    expect(new Date(merged.merged_at ?? '').toISOString()).toBe('2024-02-03T04:05:06.000Z');
  });
});
