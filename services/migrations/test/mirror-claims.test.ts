/**
 * The mirror lease on a real PostgreSQL (store/mirror-claims.ts): concurrent claimers never get the same mirror, a
 * lapsed claim is taken over and the dead claim's late outcome changes nothing, interval 0 is never due by time, a
 * requested sync is due at once and a request made while a sync runs survives it.
 */
import { type Database, openDatabase, sql } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../src/index';
import { claimPullMirrors, endPullSync, findPullMirror, insertPullMirror, requestPullSync, setPullInterval } from '../src/store/pull-mirrors';
import { claimPushMirrors, endPushSync, findPushMirror, insertPushMirror, requestPushSyncs } from '../src/store/push-mirrors';

jest.setTimeout(60_000);

const AUTH = { username: 'u', password: 'p', token: '' };

describe('mirror claims', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase('migrations_mirror_claims');
    db = await openDatabase({ url: database.url, schema: DATABASE_SCHEMA, logger: silentLogger(), migrationsDir: MIGRATIONS_DIR });
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /** Makes every pull mirror's periodic sync due now. */
  const makeDue = () => db.pool.query(sql.unsafe`UPDATE pull_mirrors SET next_update = now() - interval '1 second' WHERE next_update IS NOT NULL`);

  it('never gives one mirror to two claimers at once', async () => {
    for (let id = 1; id <= 40; id += 1) await insertPullMirror(db.pool, { repoId: id, remoteAddress: `http://h/${id}.git`, auth: AUTH, intervalMs: 600_000 });
    await makeDue();
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimPullMirrors(db.pool, 10, 60_000)));
    const ids = claims.flat().map((row) => row.repo_id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    expect(await claimPullMirrors(db.pool, 10, 60_000)).toEqual([]);
    for (const row of claims.flat()) expect(await endPullSync(db.pool, row.repo_id, row.attempts, '')).toBeInstanceOf(Date);
    // Synced: the next periodic sync is an interval away.
    expect(await claimPullMirrors(db.pool, 100, 60_000)).toEqual([]);
  });

  it('takes a lapsed claim over and fences the dead one', async () => {
    await requestPullSync(db.pool, 1);
    const [dead] = await claimPullMirrors(db.pool, 1, 1);
    expect(dead.repo_id).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [taken] = await claimPullMirrors(db.pool, 1, 60_000);
    expect(taken).toMatchObject({ repo_id: 1, attempts: dead.attempts + 1 });
    expect(await endPullSync(db.pool, 1, dead.attempts, 'late failure')).toBeUndefined();
    expect(await endPullSync(db.pool, 1, taken.attempts, '')).toBeInstanceOf(Date);
    expect(await findPullMirror(db.pool, 1)).toMatchObject({ last_error: '', claimed_until: null, requested_at: null });
  });

  it('keeps a request made while a sync ran, and interval 0 is never due by time', async () => {
    await requestPullSync(db.pool, 2);
    const [running] = await claimPullMirrors(db.pool, 1, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await requestPullSync(db.pool, 2);
    await endPullSync(db.pool, 2, running.attempts, '');
    expect((await claimPullMirrors(db.pool, 5, 60_000)).map((row) => row.repo_id)).toEqual([2]);

    await setPullInterval(db.pool, 3, 0);
    expect(await findPullMirror(db.pool, 3)).toMatchObject({ interval_ms: 0, next_update: null });
    await makeDue();
    expect((await claimPullMirrors(db.pool, 100, 60_000)).map((row) => row.repo_id)).not.toContain(3);
  });

  it('claims push mirrors asked for on commit only when they sync on commit', async () => {
    const onCommit = await insertPushMirror(db.pool, { repoId: 100, remoteName: 'remote_mirror_a', remoteAddress: 'http://h/a.git', auth: AUTH, intervalMs: 0, syncOnCommit: true });
    await insertPushMirror(db.pool, { repoId: 100, remoteName: 'remote_mirror_b', remoteAddress: 'http://h/b.git', auth: AUTH, intervalMs: 0, syncOnCommit: false });
    expect(await requestPushSyncs(db.pool, 100, 'on_commit')).toBe(1);
    const claimed = await claimPushMirrors(db.pool, 10, 60_000);
    expect(claimed.map((row) => row.remote_name)).toEqual(['remote_mirror_a']);
    expect(await endPushSync(db.pool, onCommit.id, claimed[0].attempts, 'push failed')).toBe(true);
    expect(await findPushMirror(db.pool, 100, 'remote_mirror_a')).toMatchObject({ last_error: 'push failed', next_update: null });
    expect(await requestPushSyncs(db.pool, 100, 'all')).toBe(2);
    expect((await claimPushMirrors(db.pool, 10, 60_000)).map((row) => row.remote_name).sort()).toEqual(['remote_mirror_a', 'remote_mirror_b']);
  });
});
