/**
 * social as a process lives: it declares its own stream, binds its durable consumers to repos', accounts' and
 * issues' streams, serves health for its three services, publishes what it wrote to the outbox, and after a
 * restart applies the deletions published while it was down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, type BusMessage, type ConsumeOptions, createInProcessBus, encodeEvent, uuidv7 } from '@cairn/bus';
import { loadConfig, type CairnConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { StarServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { checkHealth, createRpcClient } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { SOCIAL_STREAM, SOCIAL_SUBJECTS, start } from '../src/index';
import { PRODUCER_STREAMS } from './harness';

/** A first health call on a fresh channel can take over the default 1 s when the whole suite runs in parallel. */
const HEALTH_DEADLINE_MS = 10_000;

const logger = silentLogger();
let database: TestDatabase;
let workDir: string;
let config: CairnConfig;
let bus: Bus;
let sql: Client;

beforeAll(async () => {
  database = await createTestDatabase('social_life');
  workDir = mkdtempSync(path.join(tmpdir(), 'cairn-social-'));
  ({ config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } }));
  bus = await createInProcessBus({ url: database.url, logger });
  for (const [name, subjects] of PRODUCER_STREAMS) await bus.ensureStream(name, subjects);
  sql = new Client({ connectionString: database.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await bus?.close();
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

it('declares CAIRN_SOCIAL and consumes repository and user events and issue and comment deletions with its durables', async () => {
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
  const subjects = ['cairn.star.>', 'cairn.watch.>', 'cairn.reaction.>'];
  expect(streams).toEqual([{ name: 'CAIRN_SOCIAL', subjects }]);
  expect([SOCIAL_STREAM, SOCIAL_SUBJECTS]).toEqual(['CAIRN_SOCIAL', subjects]);
  expect(consumers).toEqual([
    expect.objectContaining({ stream: 'CAIRN_REPOS', durable: 'social-repos', filterSubject: 'cairn.repo.>' }),
    expect.objectContaining({ stream: 'CAIRN_ACCOUNTS', durable: 'social-users', filterSubject: 'cairn.user.>' }),
    expect.objectContaining({ stream: 'CAIRN_ISSUES', durable: 'social-issues', filterSubject: 'cairn.issue.deleted' }),
    expect.objectContaining({ stream: 'CAIRN_ISSUES', durable: 'social-issue-comments', filterSubject: 'cairn.issue_comment.deleted' }),
  ]);
});

it('serves health, publishes its events, and applies after a restart the deletions published while it was stopped', async () => {
  const published: BusMessage[] = [];
  const subscription = await bus.subscribe('cairn.star.>', (message) => void published.push(message));
  const first = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${first.port}`;
  expect(first.name).toBe('social');
  expect(await checkHealth(target, '', HEALTH_DEADLINE_MS)).toBe(true);
  expect(await checkHealth(target, 'cairn.social.v1.StarService', HEALTH_DEADLINE_MS)).toBe(true);
  expect(await checkHealth(target, 'cairn.social.v1.WatchService', HEALTH_DEADLINE_MS)).toBe(true);
  expect(await checkHealth(target, 'cairn.social.v1.ReactionService', HEALTH_DEADLINE_MS)).toBe(true);

  const stars = createRpcClient(StarServiceService, { target, service: 'social', caller: 'gateway', logger });
  await stars.star({ userId: 1, repoId: 91 });
  stars.close();
  await eventually(() => expect(published.map((message) => message.subject)).toEqual(['cairn.star.created']));
  await subscription.stop();
  await first.stop();
  await first.stop();
  expect(await checkHealth(target)).toBe(false);

  const eventId = uuidv7();
  const deleted = RepoDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: 91 }, repoId: 91 });
  await bus.publish('cairn.repo.deleted', eventId, encodeEvent(RepoDeleted, deleted));
  const second = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  try {
    await eventually(async () => {
      const { rows } = await sql.query('SELECT 1 FROM social.stars WHERE repo_id = 91');
      expect(rows).toEqual([]);
    });
  } finally {
    await second.stop();
  }
});
