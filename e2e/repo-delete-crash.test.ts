/**
 * Repository deletion survives `kill -9`, on the built supervisor in its single-process mode (one process: killing it
 * kills repos and git-storage together). The test holds the deleting transaction at its COMMIT — a deferred trigger
 * waits for an advisory lock the test holds — and kills the process there, so the kill lands at a known point with no
 * fault point in Cairn's code. Then it lets the COMMIT either land (the process died between the commit and the
 * removal of the git data) or fail (it died before the commit), restarts, and checks that no repository is left
 * without its data and no data without its repository.
 */
import * as fs from 'node:fs';
import { repositoryPath } from '@cairn/git-storage';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { apiClient, type ApiClient } from './support/client';
import { baseEnv, basicAuth, cleanUpWorkDir, makeWorkDir, runCli, startInstance, waitFor, type Instance } from './support/instance';

jest.setTimeout(240_000);

/** The advisory lock the deferred trigger waits for. */
const HOLD = 7_421_001;

describe('kill -9 during a repository deletion', () => {
  let database: TestDatabase;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let pg: Client;
  const instances: Instance[] = [];
  let api: ApiClient;
  const root = basicAuth('root', 'root-pass-123');

  const start = async () => {
    const instance = await startInstance(workDir, env);
    instances.push(instance);
    api = apiClient(instance.httpUrl);
    return instance;
  };
  const gitDir = (id: number) => repositoryPath(`${workDir}/repositories`, { storage: '', repoId: id });
  const count = async (query: string, id: number) => Number((await pg.query<{ count: string }>(query, [id])).rows[0].count);
  const rows = (id: number) => count('SELECT count(*) FROM repos.repositories WHERE id = $1', id);
  const purges = (id: number) => count('SELECT count(*) FROM repos.repo_purges WHERE repo_id = $1', id);

  async function createRepo(name: string): Promise<number> {
    const made = await api.request<{ id: number }>('POST', '/api/v1/user/repos', { headers: root, body: { name, auto_init: true } });
    expect({ status: made.status, body: made.body }).toMatchObject({ status: 201 });
    expect(fs.existsSync(gitDir(made.body.id))).toBe(true);
    return made.body.id;
  }

  /** Starts deleting `name` and kills the process while the deleting transaction waits at COMMIT; answers its backend. */
  async function killDuringCommit(instance: Instance, name: string): Promise<number> {
    await pg.query('SELECT pg_advisory_lock($1)', [HOLD]);
    void fetch(`${instance.httpUrl}/api/v1/repos/root/${name}`, { method: 'DELETE', headers: root }).catch(() => undefined);
    const backend = await waitFor('the deletion to wait at its COMMIT', async () => {
      const waiting = await pg.query<{ pid: number }>("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", [HOLD]);
      return waiting.rows[0]?.pid;
    });
    instance.child.kill('SIGKILL');
    await instance.exited;
    return backend;
  }

  const backendGone = (pid: number) =>
    waitFor('the deleting backend to end', async () => ((await count('SELECT count(*) FROM pg_stat_activity WHERE pid = $1', pid)) === 0 ? true : undefined));

  beforeAll(async () => {
    database = await createTestDatabase('e2e_repo_delete_crash');
    workDir = makeWorkDir();
    env = baseEnv(workDir, { CAIRN__database__URL: database.url, CAIRN__server__HTTP_PORT: '0' });
    const instance = await start();
    expect(instance.runtime.mode).toBe('single-process');
    expect((await runCli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-pass-123', '--email', 'root@example.com', '--admin'], env)).code).toBe(0);
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    await pg.query(`
      CREATE FUNCTION repos.e2e_hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${HOLD}); RETURN NULL; END $$`);
    await pg.query(`
      CREATE CONSTRAINT TRIGGER e2e_hold_commit AFTER DELETE ON repos.repositories DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION repos.e2e_hold_commit()`);
  });

  afterAll(async () => {
    await pg?.end();
    if (workDir !== undefined) await cleanUpWorkDir(workDir, instances);
    await database?.drop();
  });

  it('killed before the COMMIT lands: the repository stays with its data, and deleting it again works', async () => {
    const id = await createRepo('rolled-back');
    const backend = await killDuringCommit(instances[instances.length - 1], 'rolled-back');
    // The COMMIT never lands.
    await pg.query('SELECT pg_terminate_backend($1)', [backend]);
    await pg.query('SELECT pg_advisory_unlock($1)', [HOLD]);
    await backendGone(backend);
    expect(await rows(id)).toBe(1);
    expect(fs.existsSync(gitDir(id))).toBe(true);

    await start();
    expect((await api.request('GET', '/api/v1/repos/root/rolled-back/contents/README.md', { headers: root })).status).toBe(200);
    expect((await api.request('DELETE', '/api/v1/repos/root/rolled-back', { headers: root })).status).toBe(204);
    expect(await rows(id)).toBe(0);
    expect(fs.existsSync(gitDir(id))).toBe(false);
    expect(await purges(id)).toBe(0);
  });

  it('killed between the COMMIT and the removal: the data is gone after the restart', async () => {
    const id = await createRepo('committed');
    const backend = await killDuringCommit(instances[instances.length - 1], 'committed');
    // The COMMIT lands after the process died: nothing removed the data.
    await pg.query('SELECT pg_advisory_unlock($1)', [HOLD]);
    await backendGone(backend);
    expect(await rows(id)).toBe(0);
    expect(fs.existsSync(gitDir(id))).toBe(true);
    expect(await purges(id)).toBe(1);

    await start();
    // Start-up removes what the crash left.
    await waitFor('the purger to remove the data', async () => (!fs.existsSync(gitDir(id)) && (await purges(id)) === 0 ? true : undefined));
    expect((await api.request('GET', '/api/v1/repos/root/committed', { headers: root })).status).toBe(404);
    // The name starts from nothing again.
    const again = await api.request<{ id: number; empty: boolean }>('POST', '/api/v1/user/repos', { headers: root, body: { name: 'committed' } });
    expect(again).toMatchObject({ status: 201, body: { empty: true } });
    expect(again.body.id).not.toBe(id);
  });
});
