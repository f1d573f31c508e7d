/**
 * Updating a pull request's head branch end to end (`POST …/pulls/{index}/update`, Gitea's UpdatePullRequest) on
 * the built supervisor, with branches pushed over smart HTTP and every answer checked against Gitea's description:
 * a branch behind main brought up to date by a merge commit and by a rebase (the head moves, contains main's
 * commit, the pull request stays mergeable), a head that already contains the base (422), a conflict (409), a
 * stranger (403), a fork's branch updated by a maintainer once the poster allows maintainer edits; also the
 * list's `base_branch` filter and `content_version` on pull-request edits.
 */
import { type Pull, type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

describe('updating pull requests', () => {
  let fixture: Fixture;
  let w: PullWork;
  /** alice's clone of alice/demo. */
  let work: string;

  const alice = () => fixture.as('alice');
  const bob = () => fixture.as('bob');
  const carol = () => fixture.as('carol');

  const call: PullWork['call'] = (...args) => w.call(...args);
  const gitOk = (args: string[], cwd = work) => w.gitOk(args, cwd);
  const settled = (index: number, want: (pull: Pull) => boolean) => w.settled('alice/demo', index, alice(), want);
  const update = (index: number, headers: Record<string, string>, style?: string) =>
    call('POST', `/repos/alice/demo/pulls/${index}/update${style === undefined ? '' : `?style=${style}`}`, headers);
  /** Whether `ancestor` is in the history of `descendant` (both fetched into `cwd`). */
  const contains = async (descendant: string, ancestor: string, cwd = work) => (await w.git(['merge-base', '--is-ancestor', ancestor, descendant], cwd)).code === 0;

  /** A branch from main with one commit, then a commit on main: the branch is behind. Its pull request, settled. */
  async function behindMain(branch: string, file: string, mainFile = `${branch}-main.txt`, mergeable = true): Promise<{ pull: Pull; head: string; main: string }> {
    const head = await w.pushBranch(work, branch, file, `${branch}\n`);
    const main = await w.pushToBranch(work, 'main', mainFile, 'main moves on\n');
    const created = await w.createPull('alice/demo', branch, `Update ${branch}`, alice());
    const pull = await settled(created.number, (p) => p.head.sha === head && p.base.sha === main && p.merge_base !== '' && p.mergeable === mergeable);
    return { pull, head, main };
  }

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls_update', ['alice', 'bob', 'carol']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture, ['carol']);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('merges main into a branch behind it: a merge commit by the doer on the head, still mergeable; then it is up to date', async () => {
    const { pull, head, main } = await behindMain('behind-merge', 'merge.txt');
    // A writer of the repository (not the poster) updates it; any style but "rebase" merges.
    expect((await update(pull.number, carol())).status).toBe(200);
    const moved = await w.branchHead('alice/demo', 'behind-merge', alice());
    expect(moved).not.toBe(head);
    await gitOk(['fetch', '--quiet', 'origin']);
    expect(await gitOk(['show', '-s', '--format=%P', moved])).toBe(`${head} ${main}`);
    expect(await gitOk(['show', '-s', '--format=%s|%an|%cn', moved])).toBe("Merge branch 'main' into behind-merge|carol|carol");
    const after = await settled(pull.number, (p) => p.head.sha === moved);
    expect(after).toMatchObject({ mergeable: true, merge_base: main, state: 'open' });

    const again = await update(pull.number, carol());
    expect(again).toMatchObject({ status: 422, body: { message: `HeadBranch of PR ${pull.number} is up to date` } });
  });

  it('rebases a branch behind main onto it: its commit replayed on main\'s tip', async () => {
    const { pull, head, main } = await behindMain('behind-rebase', 'rebase.txt');
    expect((await update(pull.number, alice(), 'rebase')).status).toBe(200);
    const moved = await w.branchHead('alice/demo', 'behind-rebase', alice());
    await gitOk(['fetch', '--quiet', 'origin']);
    expect(await gitOk(['show', '-s', '--format=%P|%s', moved])).toBe(`${main}|change rebase.txt`);
    expect(await contains(moved, head)).toBe(false);
    expect(await contains(moved, main)).toBe(true);
    const after = await settled(pull.number, (p) => p.head.sha === moved);
    expect(after).toMatchObject({ mergeable: true, merge_base: main });
    // It merges as any pull request.
    expect((await call('POST', `/repos/alice/demo/pulls/${pull.number}/merge`, alice(), { do: 'merge' })).status).toBe(200);
    const merged = await update(pull.number, alice());
    expect(merged.status).toBe(422);
  });

  it('refuses a conflicting update (409) and a stranger (403), leaving the branch where it was', async () => {
    const { pull, head } = await behindMain('behind-conflict', 'shared.txt', 'shared.txt', false);
    const conflict = await update(pull.number, alice());
    expect(conflict).toMatchObject({ status: 409, body: { message: 'merge failed because of conflict' } });
    const rebased = await update(pull.number, alice(), 'rebase');
    expect(rebased).toMatchObject({ status: 409, body: { message: 'rebase failed because of conflict' } });
    expect(await w.branchHead('alice/demo', 'behind-conflict', alice())).toBe(head);

    const other = await behindMain('behind-stranger', 'stranger.txt');
    expect((await update(other.pull.number, bob())).status).toBe(403);
    expect((await update(other.pull.number, {})).status).toBe(401);
    expect((await update(9_999, alice())).status).toBe(404);
    expect(await w.branchHead('alice/demo', 'behind-stranger', alice())).toBe(other.head);
  });

  it("updates a fork's branch for a maintainer once the poster allows maintainer edits", async () => {
    expect((await call('POST', '/repos/alice/demo/forks', bob(), {})).status).toBe(202);
    const forkWork = await w.clone('bob/demo', 'bob', 'bob');
    const head = await w.pushBranch(forkWork, 'topic', 'topic.txt', 'from the fork\n');
    const main = await w.pushToBranch(work, 'main', 'after-fork.txt', 'main after the fork\n');
    const created = await w.createPull('alice/demo', 'bob:topic', 'From the fork', bob());
    await settled(created.number, (p) => p.head.sha === head && p.base.sha === main && p.mergeable);

    // alice may merge into main, but not push to bob's fork.
    expect((await update(created.number, alice())).status).toBe(403);
    const allowed = await call('PATCH', `/repos/alice/demo/pulls/${created.number}`, bob(), { allow_maintainer_edit: true });
    expect(allowed.status).toBe(201);
    expect((await update(created.number, alice())).status).toBe(200);
    const moved = await w.branchHead('bob/demo', 'topic', bob());
    await w.gitOk(['fetch', '--quiet', 'origin'], forkWork);
    expect(await w.gitOk(['show', '-s', '--format=%P|%s', moved], forkWork)).toBe(`${head} ${main}|Merge branch 'main' into topic`);
    await settled(created.number, (p) => p.head.sha === moved && p.mergeable);
    // The poster updates their own branch too.
    await w.pushToBranch(work, 'main', 'after-fork-2.txt', 'main again\n');
    expect((await update(created.number, bob(), 'rebase')).status).toBe(200);
  });

  it('filters the list by base branch', async () => {
    const dev = await w.pushBranch(work, 'dev', 'dev.txt', 'dev\n');
    await w.pushBranch(work, 'into-dev', 'into-dev.txt', 'into dev\n', 'origin/dev');
    const intoDev = await w.createPull('alice/demo', 'into-dev', 'Into dev', alice(), 'dev');
    expect(intoDev.base.sha).toBe(dev);
    const list = await call<Pull[]>('GET', '/repos/alice/demo/pulls?state=all&base_branch=dev', alice());
    expect(list.status).toBe(200);
    expect(list.body.map((p) => p.number)).toEqual([intoDev.number]);
    expect(list.headers.get('x-total-count')).toBe('1');
    const main = await call<Pull[]>('GET', '/repos/alice/demo/pulls?state=all&base_branch=main&limit=50', alice());
    expect(main.body.length).toBeGreaterThan(1);
    expect(main.body.every((p) => p.base.ref === 'main')).toBe(true);
    expect((await call<Pull[]>('GET', '/repos/alice/demo/pulls?base_branch=nothing', alice())).body).toEqual([]);
  });

  it('refuses a body edited from another content_version (409) and takes the current one', async () => {
    const created = await w.createPull('alice/demo', 'into-dev', 'Versioned', alice());
    const issue = () => call<{ body: string; content_version: number }>('GET', `/repos/alice/demo/issues/${created.number}`, alice());
    const version = (await issue()).body.content_version;
    const stale = await call('PATCH', `/repos/alice/demo/pulls/${created.number}`, alice(), { body: 'stale edit', content_version: version + 1 });
    expect(stale).toMatchObject({ status: 409, body: { message: 'the issue is already changed' } });
    expect((await issue()).body.body).toBe('Versioned body');
    const current = await call<Pull & { body: string }>('PATCH', `/repos/alice/demo/pulls/${created.number}`, alice(), { body: 'current edit', content_version: version });
    expect(current).toMatchObject({ status: 201, body: { body: 'current edit' } });
    expect((await issue()).body.content_version).toBe(version + 1);
  });
});
