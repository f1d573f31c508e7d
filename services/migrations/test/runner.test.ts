/**
 * The import task runner on a real PostgreSQL: a task whose claim lapsed (its replica died mid-import) is taken over
 * and finishes once; the dead claim's late writes change nothing; a refused credential fails the task with Gitea's
 * message and deletes the repository. The services it calls (repos, git-storage) are stand-ins recording the calls.
 */
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import type { FetchRemoteRequest } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { loadConfig } from '@cairn/config';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../src/index';
import type { MigrationsClients, MigrationsContext } from '../src/rpc/context';
import { STATUS, claimTasks, endTask, findTask, insertTask } from '../src/store/tasks';
import { startTaskRunner } from '../src/tasks/runner';

jest.setTimeout(60_000);

const OPTIONS = { mirror: false, private: false, description: '', wiki: false, milestones: false, labels: false, issues: false, pull_requests: false, releases: false, lfs: false };

describe('import task runner', () => {
  let database: TestDatabase;
  let db: Database;
  const fetches: FetchRemoteRequest[] = [];
  const deleted: number[] = [];
  const updates: { id: number; defaultBranch?: string }[] = [];
  let fetchAnswer: () => Promise<{ updated: { ref: string; oldSha: string; newSha: string }[]; remoteHead: string; empty: boolean }>;

  const repository = (id: number, empty: boolean): Repository => ({ id, ownerId: 7, private: false, defaultBranch: 'main', empty }) as Repository;

  beforeAll(async () => {
    database = await createTestDatabase('migrations_runner');
    db = await openDatabase({ url: database.url, schema: DATABASE_SCHEMA, logger: silentLogger(), migrationsDir: MIGRATIONS_DIR });
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  function context(): MigrationsContext {
    const fetched = new Set<number>();
    const clients = {
      users: {},
      repos: {
        getRepository: async ({ id }: { id: number }) => ({ repository: { repository: repository(id, !fetched.has(id)) } }),
        updateRepository: async (request: { id: number; defaultBranch?: string }) => {
          updates.push({ id: request.id, defaultBranch: request.defaultBranch });
          return {};
        },
        deleteRepository: async ({ id }: { id: number }) => {
          deleted.push(id);
          return {};
        },
      },
      remotes: {
        fetchRemote: async (request: FetchRemoteRequest) => {
          fetches.push(request);
          const answer = await fetchAnswer();
          fetched.add(request.repository!.repoId);
          return answer;
        },
      },
    } as unknown as MigrationsClients;
    return { db, logger: silentLogger(), config: loadConfig({ env: {}, cwd: '/' }).config, clients };
  }

  const newTask = (repoId: number) =>
    insertTask(db.pool, { repoId, ownerId: 7, doerId: 3, cloneAddr: 'https://example.com/o/r.git', service: 'git', options: OPTIONS, auth: { username: 'u', password: 'p', token: '' } });

  it('takes over a task whose claim lapsed, finishes it once, and fences the dead claim', async () => {
    fetchAnswer = async () => ({ updated: [{ ref: 'refs/heads/trunk', oldSha: '', newSha: 'a'.repeat(40) }], remoteHead: 'trunk', empty: false });
    const id = await newTask(101);
    // A replica claims it and dies.
    const [dead] = await claimTasks(db.pool, 10, 500);
    expect(dead).toMatchObject({ id, attempts: 1, status: STATUS.running });
    const runner = startTaskRunner(context(), { leaseMs: 500 });
    try {
      await eventually(async () => expect((await findTask(db.pool, id))?.status).toBe(STATUS.finished), 20_000);
    } finally {
      await runner.stop();
    }
    const task = await findTask(db.pool, id);
    expect(task).toMatchObject({ attempts: 2, step: 'done', message: '', auth_password: '', auth_username: '' });
    expect(fetches.filter((fetch) => fetch.repository?.repoId === 101)).toHaveLength(1);
    expect(fetches[0]).toMatchObject({ url: 'https://example.com/o/r.git', origin: 'migration', auth: { username: 'u', password: 'p' }, push: { pusherId: 3 } });
    expect(updates).toContainEqual({ id: 101, defaultBranch: 'trunk' });
    // The dead claim's late outcome changes nothing.
    expect(await endTask(db.pool, id, dead.attempts, { status: STATUS.failed, message: 'late', reason: 'x' })).toBe(false);
    expect((await findTask(db.pool, id))?.status).toBe(STATUS.finished);
  });

  it('fails a task whose credentials the remote refuses, with Gitea\'s message, and deletes the repository', async () => {
    fetchAnswer = () => Promise.reject(CairnError.precondition('the remote refused the credentials', { reason: 'auth_failed' }));
    const id = await newTask(102);
    const runner = startTaskRunner(context(), { leaseMs: 2_000 });
    try {
      await eventually(async () => expect((await findTask(db.pool, id))?.status).toBe(STATUS.failed), 20_000);
    } finally {
      await runner.stop();
    }
    expect(await findTask(db.pool, id)).toMatchObject({ message: 'Authentication failed: the remote refused the credentials.', failure_reason: 'auth_failed', auth_password: '' });
    expect(deleted).toEqual([102]);
  });
});
