/**
 * A pull request's head cannot be swapped by a push, end to end on the built supervisor: with main requiring an
 * approval and a green `ci`, both given on the pull request's head, a writer's `git push` to refs/pull/<n>/head is
 * declined by the update hook (`! [remote rejected] … (hook declined)`, Gitea's runHookUpdate) while the branch
 * pushed with it goes through; a merge naming another head is 409 `head out of date`; a merge naming none merges
 * the head that was approved and checked, not the commit the push tried to put there.
 */
import { type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

describe('refs/pull pushes and merged heads', () => {
  let fixture: Fixture;
  let w: PullWork;

  const alice = () => fixture.as('alice');
  const carol = () => fixture.as('carol');
  const call: PullWork['call'] = (...args) => w.call(...args);

  beforeAll(async () => {
    fixture = await startFixture('e2e_pull_refs', ['alice', 'bob', 'carol']);
    w = await pullWork(fixture);
    await demoRepository(w, fixture, ['bob', 'carol']);
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), {
      rule_name: 'main',
      enable_push: true,
      required_approvals: 1,
      enable_status_check: true,
      status_check_contexts: ['ci'],
    });
    expect(rule.status).toBe(201);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('declines a push to refs/pull/<n>/head and merges the approved, checked head', async () => {
    const bob = await w.clone('alice/demo', 'bob', 'bob');
    const approved = await w.pushBranch(bob, 'feature', 'feature.txt', 'reviewed\n');
    const created = await w.createPull('alice/demo', 'feature', 'Reviewed change', fixture.as('bob'));
    const pullPath = `/repos/alice/demo/pulls/${created.number}`;
    await w.settled('alice/demo', created.number, alice(), (pull) => pull.mergeable && pull.head.sha === approved);
    expect((await call('POST', `${pullPath}/reviews`, carol(), { event: 'APPROVED', body: 'looks right' })).status).toBe(200);
    expect((await call('POST', `/repos/alice/demo/statuses/${approved}`, alice(), { state: 'success', context: 'ci' })).status).toBe(201);

    // bob swaps the pull request's head for a commit nobody reviewed, and pushes a branch along with it.
    await w.gitOk(['checkout', '--quiet', '-b', 'evil'], bob);
    const evil = await w.commitFile(bob, 'evil.txt', 'not reviewed\n');
    const push = await w.git(['push', 'origin', `evil:refs/pull/${created.number}/head`, 'evil:refs/heads/side'], bob);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain(`! [remote rejected] evil -> refs/pull/${created.number}/head (hook declined)`);
    expect(push.stderr).toContain(`remote: refusing refs/pull/${created.number}/head: a push may only update refs/heads/ and refs/tags/`);
    expect(push.stderr).toMatch(/\* \[new branch\]\s+evil -> side/);
    expect(await w.branchHead('alice/demo', 'side', alice())).toBe(evil);
    const remoteHead = await w.gitOk(['ls-remote', 'origin', `refs/pull/${created.number}/head`], bob);
    expect(remoteHead.split('\t')[0]).toBe(approved);
    // Deleting it is declined too.
    const deletion = await w.git(['push', 'origin', `:refs/pull/${created.number}/head`], bob);
    expect(deletion.stderr).toContain(`! [remote rejected] refs/pull/${created.number}/head (hook declined)`);

    // A merge of another head than the one approved and checked is Gitea's 409.
    const stale = await call<{ message: string }>('POST', `${pullPath}/merge`, alice(), { Do: 'merge', head_commit_id: evil });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe('head out of date');
    expect((await call('GET', `${pullPath}/merge`, alice())).status).toBe(404);

    const merged = await call('POST', `${pullPath}/merge`, alice(), { Do: 'merge' });
    expect(merged.status).toBe(200);
    const pull = await w.settled('alice/demo', created.number, alice(), (p) => p.merged);
    expect(pull.merge_commit_sha).toBe(await w.branchHead('alice/demo', 'main', alice()));
    await w.gitOk(['fetch', '--quiet', 'origin'], bob);
    expect(await w.gitOk(['rev-parse', `${pull.merge_commit_sha}^2`], bob)).toBe(approved);
    expect((await w.git(['cat-file', '-e', 'origin/main:evil.txt'], bob)).code).not.toBe(0);
  });
});
