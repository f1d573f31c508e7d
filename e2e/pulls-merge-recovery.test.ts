/**
 * A merge whose record failed after git moved the base branch, end to end on the built supervisor: the database
 * refuses the first write marking the pull request merged (a trigger in issues' schema, the fault injected from
 * outside), so the merge answers 500 with main already moved. The merge's own push asks for a mergeability check,
 * which finds the merge intent and records the merge git made: the pull request merged with main's new commit as its
 * merge commit, one merge_pull timeline entry, one merge commit on main; merging again is Gitea's 405.
 */
import { Client } from 'pg';
import { type Pull, type PullWork, demoRepository, pullWork } from './support/pull-work';
import { type Fixture, startFixture } from './support/fixture';

jest.setTimeout(240_000);

describe('a merge whose record failed', () => {
  let fixture: Fixture;
  let w: PullWork;
  let work: string;
  let db: Client;

  const alice = () => fixture.as('alice');

  beforeAll(async () => {
    fixture = await startFixture('e2e_pulls_merge_recovery', ['alice']);
    w = await pullWork(fixture);
    work = await demoRepository(w, fixture);
    db = new Client({ connectionString: fixture.database.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    w?.cleanUp();
    await fixture?.stop();
  });

  it('is recorded by the check its own push asks for: the commit git made, once', async () => {
    const head = await w.pushBranch(work, 'recover', 'recover.txt', 'recovered\n');
    const created = await w.createPull('alice/demo', 'recover', 'Recover me', alice());
    await w.settled('alice/demo', created.number, alice(), (pull) => pull.mergeable);
    const before = await w.branchHead('alice/demo', 'main', alice());

    // The first write that marks a pull request merged fails (a sequence counts: it does not roll back).
    await db.query(`
      CREATE SEQUENCE issues.merge_record_fault;
      CREATE FUNCTION issues.merge_record_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('issues.merge_record_fault') = 1 THEN RAISE EXCEPTION 'injected fault: the merge record fails'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER merge_record_fault BEFORE UPDATE OF has_merged ON issues.pull_requests
        FOR EACH ROW WHEN (NEW.has_merged AND NOT OLD.has_merged) EXECUTE FUNCTION issues.merge_record_fault();`);
    const failed = await w.call('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'merge' });
    expect(failed.status).toBe(500);
    const merged = await w.branchHead('alice/demo', 'main', alice());
    expect(merged).not.toBe(before);

    const pull: Pull = await w.settled('alice/demo', created.number, alice(), (p) => p.merged);
    expect(pull).toMatchObject({ merged: true, state: 'closed', merge_commit_sha: merged, merged_by: { login: 'alice' } });
    expect(await w.branchHead('alice/demo', 'main', alice())).toBe(merged);
    await w.gitOk(['fetch', '--quiet', 'origin'], work);
    // One merge commit on main, of the old main and the head.
    expect(await w.gitOk(['log', '--merges', '--format=%H %P', `${before}..origin/main`], work)).toBe(`${merged} ${before} ${head}`);
    const timeline = await w.call<Array<{ type: string }>>('GET', `/repos/alice/demo/issues/${created.number}/timeline`, alice());
    expect(timeline.body.filter((entry) => entry.type === 'merge_pull')).toHaveLength(1);

    const again = await w.call<{ message: string }>('POST', `/repos/alice/demo/pulls/${created.number}/merge`, alice(), { do: 'merge' });
    expect(again).toMatchObject({ status: 405, body: { message: 'The PR is already merged' } });
    expect(await w.branchHead('alice/demo', 'main', alice())).toBe(merged);
  });
});
