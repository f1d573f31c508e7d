/**
 * repos as a process lives: it defines its own stream (only), binds its durable consumers to accounts' and git-storage's, serves
 * health and answers, applies accounts' events published on the bus, and stops cleanly (twice is fine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, type ConsumeOptions, createInProcessBus, encodeEvent, uuidv7 } from '@cairn/bus';
import { loadConfig, type CairnConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code, checkHealth, createRpcClient } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { start } from '../src/index';

/** A first health call on a fresh channel can take over the default 1 s when the whole suite runs in parallel. */
const HEALTH_DEADLINE_MS = 10_000;

const logger = silentLogger();
let database: TestDatabase;
let workDir: string;
let config: CairnConfig;
let bus: Bus;
let sql: Client;

beforeAll(async () => {
  database = await createTestDatabase('repos_life');
  workDir = mkdtempSync(path.join(tmpdir(), 'cairn-repos-life-'));
  ({ config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } }));
  bus = await createInProcessBus({ url: database.url, logger });
  // accounts' stream as accounts defines it: repos only binds to it.
  await bus.ensureStream('CAIRN_ACCOUNTS', ['cairn.user.>', 'cairn.access_token.>', 'cairn.org.>', 'cairn.org_member.>', 'cairn.team.>', 'cairn.team_member.>']);
  sql = new Client({ connectionString: database.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await bus?.close();
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

it('defines its own stream only, and binds durable consumers to the accounts, git and issues streams', async () => {
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
  expect(streams.map((stream) => stream.name)).toEqual(['CAIRN_REPOS']);
  expect(streams[0].subjects).toEqual(['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>', 'cairn.release.>']);
  expect(consumers.map((consumer) => [consumer.stream, consumer.durable, consumer.filterSubject])).toEqual([
    ['CAIRN_ACCOUNTS', 'repos-accounts', 'cairn.>'],
    ['CAIRN_GIT', 'repos-git', 'cairn.git.pushed'],
    ['CAIRN_ISSUES', 'repos-issue-attachments', 'cairn.issue.deleted'],
    ['CAIRN_ISSUES', 'repos-comment-attachments', 'cairn.issue_comment.deleted'],
  ]);
});

it('serves, applies accounts events from the bus, and stops', async () => {
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  const repos = createRpcClient(RepoServiceService, { target, service: 'repos', caller: 'gateway', logger });
  try {
    expect(await checkHealth(target, 'cairn.repos.v1.RepoService', HEALTH_DEADLINE_MS)).toBe(true);
    await expect(repos.getRepository({ viewer: undefined, id: 404, owner: '', name: '' })).rejects.toMatchObject({ code: Code.NOT_FOUND });
    await sql.query(
      `INSERT INTO repos.repositories (owner_id, owner_name, lower_owner_name, owner_type, owner_visibility, name, lower_name, default_branch)
       VALUES (7, 'seven', 'seven', 0, 'public', 'app', 'app', 'main')`,
    );
    const id = uuidv7();
    const event = UserUpdated.fromPartial({
      meta: { eventId: id, occurredAt: new Date(), actorId: 7, repoId: 0 },
      user: User.fromPartial({ id: 7, login: 'seven', visibility: 'limited' }),
      changed: ['visibility'],
    });
    await bus.publish('cairn.user.updated', id, encodeEvent(UserUpdated, event));
    await eventually(async () => {
      const { rows } = await sql.query<{ owner_visibility: string }>('SELECT owner_visibility FROM repos.repositories WHERE owner_id = 7');
      expect(rows[0].owner_visibility).toBe('limited');
    });
  } finally {
    repos.close();
    await service.stop();
    await service.stop();
  }
});
