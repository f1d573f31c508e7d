/**
 * The stray restore archive sweep on a real PostgreSQL and a local object store: an archive stored but never given a
 * task (the service died in between) and one whose ended task could not delete it are deleted once untouched for the
 * age given; one still arriving (touched recently) and one a queued or running task reads are kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '@cairn/config';
import { type Database, sql } from '@cairn/db';
import { openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { type ObjectStore, openObjectStore } from '@cairn/storage';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../src/index';
import type { MigrationsClients, MigrationsContext } from '../src/rpc/context';
import { touchArchive } from '../src/store/restore-archives';
import { STATUS, endTask, insertTask } from '../src/store/tasks';
import { dropArchive, sweepRestoreArchives } from '../src/tasks/archive-sweep';

jest.setTimeout(60_000);

const OPTIONS = { mirror: false, private: false, description: '', wiki: false, milestones: false, labels: false, issues: false, pull_requests: false, releases: false, lfs: false };

describe('restore archive sweep', () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  let objects: ObjectStore;
  let context: MigrationsContext;

  beforeAll(async () => {
    database = await createTestDatabase('migrations_archive_sweep');
    db = await openDatabase({ url: database.url, schema: DATABASE_SCHEMA, logger: silentLogger(), migrationsDir: MIGRATIONS_DIR });
    dir = mkdtempSync(path.join(tmpdir(), 'cairn-archive-sweep-'));
    objects = openObjectStore({ type: 'local', path: dir });
    context = { db, logger: silentLogger(), config: loadConfig({ env: {}, cwd: '/' }).config, clients: {} as MigrationsClients, objects };
  });

  afterAll(async () => {
    await objects?.close();
    await db?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An archive as RestoreRepository stores one, its row's touch `ageMs` in the past. */
  async function stored(key: string, ageMs: number): Promise<void> {
    await touchArchive(db.pool, key);
    await objects.put(key, (async function* () {
      yield Buffer.from('tar bytes');
    })());
    await db.pool.query(sql.unsafe`UPDATE restore_archives SET touched_at = now() - make_interval(secs => ${ageMs / 1000}) WHERE key = ${key}`);
  }
  const task = (repoId: number, archiveKey: string) =>
    insertTask(db.pool, { repoId, ownerId: 7, doerId: 3, cloneAddr: '', service: 'restore', options: OPTIONS, auth: { username: '', password: '', token: '' }, archiveKey });
  const exists = async (key: string) => (await objects.stat(key)) !== undefined;
  const rows = async () => [...(await db.pool.anyFirst(sql.unsafe`SELECT key FROM restore_archives ORDER BY key`))];

  it('deletes what no live task reads once untouched for the age, keeps the rest', async () => {
    const HOUR = 60 * 60_000;
    await stored('restores/orphan', 2 * HOUR); // its task was never inserted
    await stored('restores/arriving', 60_000); // still being uploaded
    await stored('restores/queued', 2 * HOUR);
    await task(1, 'restores/queued');
    await stored('restores/running', 2 * HOUR);
    const running = await task(2, 'restores/running');
    await db.pool.query(sql.unsafe`UPDATE migration_tasks SET status = ${STATUS.running}, attempts = 1 WHERE id = ${running}`);
    await stored('restores/ended', 2 * HOUR); // its task finished but the delete failed
    const ended = await task(3, 'restores/ended');
    await db.pool.query(sql.unsafe`UPDATE migration_tasks SET status = ${STATUS.running}, attempts = 1 WHERE id = ${ended}`);
    expect(await endTask(db.pool, ended, 1, { status: STATUS.finished })).toBe(true);

    expect(await sweepRestoreArchives(context, HOUR)).toBe(2);
    expect(await exists('restores/orphan')).toBe(false);
    expect(await exists('restores/ended')).toBe(false);
    for (const kept of ['restores/arriving', 'restores/queued', 'restores/running']) expect({ kept, exists: await exists(kept) }).toEqual({ kept, exists: true });
    expect(await rows()).toEqual(['restores/arriving', 'restores/queued', 'restores/running']);
    // Nothing more to do.
    expect(await sweepRestoreArchives(context, HOUR)).toBe(0);
  });

  it("an ended task's archive is deleted and forgotten; a failed delete leaves it to the sweep", async () => {
    await stored('restores/done', 0);
    await dropArchive(context, 'restores/done');
    expect(await exists('restores/done')).toBe(false);
    expect(await rows()).not.toContain('restores/done');

    await stored('restores/undeletable', 0);
    const failing: MigrationsContext = { ...context, objects: { ...objects, delete: async () => Promise.reject(new Error('store down')) } };
    await dropArchive(failing, 'restores/undeletable');
    expect(await rows()).toContain('restores/undeletable');
    expect(await sweepRestoreArchives(context, 0)).toBeGreaterThanOrEqual(1);
    expect(await exists('restores/undeletable')).toBe(false);
    expect(await rows()).not.toContain('restores/undeletable');
  });
});
