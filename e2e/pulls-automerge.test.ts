/**
 * Scheduled auto-merge end to end on the built supervisor ("merge when checks succeed"): with main requiring the
 * `ci` status, `merge_when_checks_succeed` answers 201 and leaves the pull request open while the status is
 * pending; a `success` status on the head (POST …/statuses/{sha}) reaches issues as cairn.commit_status.created and
 * the scheduler's merge follows. A schedule is cancelled by `DELETE …/merge` (204, then 404), a second one is 409,
 * and someone who neither scheduled it nor administers the repository gets Gitea's 403.
 */
import { type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

describe('scheduled auto-merge', () => {
  let fixture: Fixture;
  let w: PullWork;
  let work: string;

  const alice = () => fixture.as('alice');
  const carol = () => fixture.as('carol');
  const call: PullWork['call'] = (...args) => w.call(...args);
  const mergeable = (index: number) => w.settled('alice/demo', index, alice(), (pull) => pull.mergeable);
  const status = (sha: string, state: string) =>
    call('POST', `/repos/alice/demo/statuses/${sha}`, alice(), { state, context: 'ci', target_url: 'https://ci.example.com/1', description: state });
  const isMerged = async (index: number) => (await call('GET', `/repos/alice/demo/pulls/${index}/merge`, alice())).status === 204;

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls_auto', ['alice', 'carol']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture);
    const rule = await call('POST', '/repos/alice/demo/branch_protections', alice(), {
      rule_name: 'main',
      enable_push: true,
      enable_status_check: true,
      status_check_contexts: ['ci'],
    });
    expect(rule.status).toBe(201);
  });

  afterAll(async () => {
    w?.cleanUp();
    await fixture?.stop();
  });

  it('merges once the required status succeeds, not while it is pending', async () => {
    const head = await w.pushBranch(work, 'auto', 'auto.txt', 'auto\n');
    const created = await w.createPull('alice/demo', 'auto', 'Merge me when green', alice());
    await mergeable(created.number);

    // Without a successful `ci` a plain merge is refused.
    const refused = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { Do: 'merge' });
    expect(refused.status).toBe(405);

    const scheduled = await call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { Do: 'merge', merge_when_checks_succeed: true });
    expect(scheduled.status).toBe(201);
    expect((await status(head, 'pending')).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await isMerged(created.number)).toBe(false);

    expect((await status(head, 'success')).status).toBe(201);
    const merged = await w.settled('alice/demo', created.number, alice(), (pull) => pull.merged);
    expect(merged.merged_by?.login).toBe('alice');
    expect(merged.state).toBe('closed');
    // Nothing is scheduled any more.
    expect((await call('DELETE', `/repos/alice/demo/pulls/${created.number}/merge`, alice())).status).toBe(404);
  });

  it('cancels a schedule: 409 twice, 403 for a stranger, 204 for the scheduler, then 404', async () => {
    await w.pushBranch(work, 'later', 'later.txt', 'later\n');
    const created = await w.createPull('alice/demo', 'later', 'Maybe later', alice());
    await mergeable(created.number);
    const path = `/repos/alice/demo/pulls/${created.number}/merge`;

    expect((await call('DELETE', path, alice())).status).toBe(404);
    expect((await call('POST', path, alice(), { Do: 'squash', merge_when_checks_succeed: true })).status).toBe(201);
    const twice = await call<{ message: string }>('POST', path, alice(), { Do: 'squash', merge_when_checks_succeed: true });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toBe(`pull request is already scheduled to auto merge when checks succeed [pull_id: ${created.id}]`);

    const stranger = await call<{ message: string }>('DELETE', path, carol());
    expect(stranger.status).toBe(403);
    expect(stranger.body.message).toBe('user has no permission to cancel the scheduled auto merge');

    expect((await call('DELETE', path, alice())).status).toBe(204);
    expect((await call('DELETE', path, alice())).status).toBe(404);
    expect(await isMerged(created.number)).toBe(false);
  });
});
