/**
 * `cairn restore-repo` under a crash, on the built supervisor with the machine's NATS (every service its own
 * process): the test holds the restore at its issues step with a table lock on issues' `issues` table (the issues
 * service's import transaction waits on it), and kills the migrations process with SIGKILL. The CLI's call fails;
 * the supervisor restarts migrations, which takes the task over once the dead claim's lease lapses, fetches the
 * archive it stored again and resumes at the recorded step — after the lock is released, so the killed attempt's
 * issue batch has landed and is sent again. The result is the complete restore, every item once, and the archive
 * object and its record are gone.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testNatsUrl, uniqueName } from '@cairn/testing';
import { Client } from 'pg';
import { type Fixture, startFixture } from './support/fixture';
import { GITEA_DUMP, buildGitData, restoreObjectsIn } from './support/gitea-dump';
import { isAlive, readRuntime, runCli, waitFor } from './support/instance';
import { deleteStreamsOf } from './support/nats-streams';

jest.setTimeout(240_000);

type Json = Record<string, unknown>;

describe('restore-repo when the migrations process is killed mid-restore', () => {
  let fx: Fixture;
  let pg: Client;
  let locker: Client;
  let scratch: string;
  const prefix = uniqueName('rrfaults');

  const get = async <T = Json>(route: string): Promise<T> => {
    const answer = await fx.api.request('GET', `/api/v1${route}`, { headers: fx.root });
    expect({ route, status: answer.status }).toEqual({ route, status: 200 });
    return answer.body as T;
  };
  const migrationsPid = (): number | undefined => readRuntime(fx.workDir)?.services.migrations?.process?.pid;
  const restoreTask = async () =>
    (await pg.query<{ status: number; step: string; attempts: number; archive_key: string }>("SELECT status, step, attempts, archive_key FROM migrations.migration_tasks WHERE service = 'restore'")).rows;

  beforeAll(async () => {
    fx = await startFixture('e2e_restore_repo_faults', ['alice', 'carol'], { CAIRN__bus__URL: testNatsUrl(), CAIRN__bus__PREFIX: prefix });
    pg = new Client({ connectionString: fx.database.url });
    await pg.connect();
    locker = new Client({ connectionString: fx.database.url });
    await locker.connect();
    scratch = mkdtempSync(path.join(tmpdir(), 'cairn-restore-faults-'));
  });

  afterAll(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await locker?.end();
    await pg?.end();
    await fx?.stop();
    await deleteStreamsOf([prefix]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('resumes from the stored archive and restores everything once, leaving no archive', async () => {
    const dir = path.join(scratch, 'dump');
    cpSync(GITEA_DUMP, dir, { recursive: true });
    const commits = buildGitData(dir, scratch);

    // Writers of issues.issues wait (readers do not) until the lock is released.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE issues.issues IN EXCLUSIVE MODE');
    const restoring = runCli(['restore-repo', '-r', dir, '--owner_name', 'alice', '--repo_name', 'restored'], fx.env);

    // The restore is at its issues step (the last one recorded is releases) and the issues service's import waits on
    // the lock. The kill follows at once, well within the import call's deadline.
    await waitFor('the restore held at its issues step', async () => {
      const [task] = await restoreTask();
      if (task?.status !== 2) return undefined;
      const waiting = await pg.query(
        `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'issues' AND c.relname = 'issues' AND NOT l.granted`,
      );
      return waiting.rowCount !== null && waiting.rowCount > 0 ? true : undefined;
    });
    const [held] = await restoreTask();
    expect(held).toMatchObject({ status: 2, step: 'releases', attempts: 1 });
    expect(restoreObjectsIn(fx.workDir)).toEqual([held.archive_key.slice('restores/'.length)]);

    const before = migrationsPid();
    expect(before).toBeDefined();
    process.kill(before!, 'SIGKILL');
    // The CLI's call dies with the process; the task goes on without it.
    const cli = await restoring;
    expect(cli.code).toBe(1);
    await waitFor('migrations to be restarted', () => {
      const pid = migrationsPid();
      return pid !== undefined && pid !== before && isAlive(pid) ? pid : undefined;
    });
    // The archive waits for the new claim; the killed attempt's issue batch lands once the lock goes.
    expect(restoreObjectsIn(fx.workDir)).toHaveLength(1);
    await locker.query('COMMIT');

    const done = await waitFor(
      'the restore to finish',
      async () => {
        const [task] = await restoreTask();
        return task?.status === 5 ? task : undefined;
      },
      120_000,
    );
    expect(done).toMatchObject({ step: 'done', attempts: 2 });
    expect(fx.instance.output()).toMatch(/migrations exited unexpectedly; restarting it/);

    // Everything once: git data, issues, comments, reactions, the pull request and its reviews, the release and its asset.
    const branches = await get<Json[]>('/repos/alice/restored/branches');
    expect(branches.map((branch) => [branch.name, (branch.commit as Json).id]).sort()).toEqual([
      ['fix', commits.fix],
      ['main', commits.main],
    ]);
    const issues = await get<Json[]>('/repos/alice/restored/issues?state=all&type=issues');
    expect(issues.map((issue) => [issue.number, issue.title, issue.comments]).sort()).toEqual([
      [1, 'Crash on start', 2],
      [3, 'yes', 0],
    ]);
    expect((await get<Json[]>('/repos/alice/restored/issues/1/comments')).map((comment) => comment.body)).toEqual(['me too', 'Fixed in\nmain.']);
    expect((await get<Json[]>('/repos/alice/restored/issues/1/reactions')).map((reaction) => reaction.content)).toEqual(['+1']);
    expect((await get<Json[]>('/repos/alice/restored/labels')).map((label) => label.name)).toEqual(['bug', 'priority/high']);
    expect((await get<Json[]>('/repos/alice/restored/milestones?state=all')).map((milestone) => milestone.title).sort()).toEqual(['v0', 'v1']);
    const pulls = await get<Json[]>('/repos/alice/restored/pulls?state=all');
    expect(pulls.map((pull) => [pull.number, pull.title, pull.state])).toEqual([[2, 'Fix the crash', 'open']]);
    expect((await get<Json[]>('/repos/alice/restored/pulls/2/reviews')).map((review) => review.state)).toEqual(['APPROVED', 'REQUEST_CHANGES']);
    const releases = await get<Json[]>('/repos/alice/restored/releases');
    expect(releases.map((release) => [release.tag_name, ((release.assets as Json[]) ?? []).map((asset) => asset.name)])).toEqual([['v1.0', ['tools.txt']]]);
    // The next issue gets the next number: nothing was numbered twice.
    const next = await fx.api.request('POST', '/api/v1/repos/alice/restored/issues', { headers: fx.root, body: { title: 'after the restore' } });
    expect([next.status, (next.body as Json).number]).toEqual([201, 4]);

    // The archive and its record are gone.
    expect(restoreObjectsIn(fx.workDir)).toEqual([]);
    expect((await pg.query('SELECT key FROM migrations.restore_archives')).rows).toEqual([]);
  });
});
