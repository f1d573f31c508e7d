/**
 * notifications as a process lives: it declares the git and repos streams and its durable consumers, serves health, and
 * after a stop picks up the pushes published meanwhile (the consumer is durable) without counting earlier
 * ones again; a second start on the same database is a no-op for migrations; a repository deletion published by
 * repos forgets that repository's activity.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, type ConsumeOptions, createInProcessBus } from '@cairn/bus';
import { loadConfig, type CairnConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { checkHealth } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { ACTIVITY_CONSUMER, GIT_STREAM, GitSubject, REPOS_CONSUMER, REPOS_STREAM, ReposSubject, start } from '../src/index';
import { gitPushed, publishPush, publishRepoDeleted, repoDeleted } from './harness';

/** A first health call on a fresh channel can take over the default 1 s when the whole suite runs in parallel. */
const HEALTH_DEADLINE_MS = 10_000;

const logger = silentLogger();
let database: TestDatabase;
let workDir: string;
let config: CairnConfig;
let bus: Bus;
let sql: Client;

beforeAll(async () => {
  database = await createTestDatabase('notif_life');
  workDir = mkdtempSync(path.join(tmpdir(), 'cairn-notifications-'));
  ({ config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } }));
  bus = await createInProcessBus({ url: database.url, logger });
  // The producers' streams as a newer repos defines its own: one subject more than notifications ever knew of.
  await bus.ensureStream('CAIRN_GIT', ['cairn.git.>']);
  await bus.ensureStream('CAIRN_REPOS', NEWER_REPOS_SUBJECTS);
  sql = new Client({ connectionString: database.url });
  await sql.connect();
});

const NEWER_REPOS_SUBJECTS = ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>', 'cairn.repo_mirror.>'];

afterAll(async () => {
  await sql?.end();
  await bus?.close();
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

async function contributionsOf(userId: number): Promise<number> {
  const { rows } = await sql.query<{ total: string | null }>('SELECT sum(contributions) AS total FROM notifications.activity_buckets WHERE user_id = $1', [userId]);
  return Number(rows[0].total ?? 0);
}

it('defines no stream and consumes cairn.git.pushed, cairn.repo.deleted, issues\' events, cairn.user.deleted and cairn.repo.transfer_requested with its durables', async () => {
  const streams: Array<{ name: string; subjects: string[] }> = [];
  const consumers: ConsumeOptions[] = [];
  const spy: Bus = {
    ...bus,
    ensureStream: async (name, subjects) => void streams.push({ name, subjects }),
    consume: async (options) => {
      consumers.push(options);
      return { stop: async () => {} };
    },
  };
  const service = await start({ config, logger, bus: spy, listen: '127.0.0.1:0' });
  await service.stop();
  // Only a stream's producer defines it (git-storage and repos here).
  expect(streams).toEqual([]);
  expect([GIT_STREAM, REPOS_STREAM]).toEqual(['CAIRN_GIT', 'CAIRN_REPOS']);
  expect(consumers).toEqual([
    expect.objectContaining({ stream: 'CAIRN_GIT', durable: 'notifications-activity', filterSubject: 'cairn.git.pushed' }),
    expect.objectContaining({ stream: 'CAIRN_REPOS', durable: 'notifications-repos', filterSubject: 'cairn.repo.deleted' }),
    expect.objectContaining({ stream: 'CAIRN_ISSUES', durable: 'notifications-issues', filterSubject: 'cairn.>' }),
    expect.objectContaining({ stream: 'CAIRN_ACCOUNTS', durable: 'notifications-accounts', filterSubject: 'cairn.user.deleted' }),
    expect.objectContaining({ stream: 'CAIRN_REPOS', durable: 'notifications-transfers', filterSubject: 'cairn.repo.transfer_requested' }),
  ]);
  expect([ACTIVITY_CONSUMER, REPOS_CONSUMER]).toEqual(['notifications-activity', 'notifications-repos']);
});

it('binds to the producer’s stream as the producer defined it, never rewriting its subjects', async () => {
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  try {
    await publishRepoDeleted(bus, ReposSubject.repoDeleted, repoDeleted(76));
    const { rows } = await sql.query<{ name: string; subjects: string[] }>('SELECT name, subjects FROM cairn_bus.streams ORDER BY name');
    expect(rows).toEqual([
      { name: 'CAIRN_GIT', subjects: ['cairn.git.>'] },
      { name: 'CAIRN_REPOS', subjects: [...NEWER_REPOS_SUBJECTS].sort() },
    ]);
  } finally {
    await service.stop();
  }
});

it('serves health while running, and counts after a restart what was pushed while it was stopped', async () => {
  const first = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${first.port}`;
  expect(first.name).toBe('notifications');
  expect(await checkHealth(target, '', HEALTH_DEADLINE_MS)).toBe(true);
  expect(await checkHealth(target, 'cairn.notifications.v1.ActivityService', HEALTH_DEADLINE_MS)).toBe(true);
  await publishPush(bus, GitSubject.pushed, gitPushed({ pusherId: 1 }));
  await eventually(async () => expect(await contributionsOf(1)).toBe(1));
  await first.stop();
  await first.stop();
  expect(await checkHealth(target)).toBe(false);

  await publishPush(bus, GitSubject.pushed, gitPushed({ pusherId: 1 }));
  await publishPush(bus, GitSubject.pushed, gitPushed({ pusherId: 2 }));
  const second = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  try {
    await eventually(async () => expect(await contributionsOf(2)).toBe(1));
    expect(await contributionsOf(1)).toBe(2);
  } finally {
    await second.stop();
  }
});

it('forgets a repository’s activity when repos publishes its deletion', async () => {
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  try {
    await publishPush(bus, GitSubject.pushed, gitPushed({ pusherId: 3, repoId: 77 }));
    await publishPush(bus, GitSubject.pushed, gitPushed({ pusherId: 3, repoId: 78 }));
    await eventually(async () => expect(await contributionsOf(3)).toBe(2));
    await publishRepoDeleted(bus, ReposSubject.repoDeleted, repoDeleted(77));
    await eventually(async () => expect(await contributionsOf(3)).toBe(1));
  } finally {
    await service.stop();
  }
});
