/**
 * Fan-out on a test database: events published on the in-process bus (and handed to a consumer's handler directly
 * where a test asserts that nothing happened) become one payload row per event and type and one task per active hook
 * that may see the event and wants it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, type BusMessage, type Subscription, createInProcessBus, encodeEvent, type EventEncoder, prepareOutbox, uuidv7 } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { GitPushed, type RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import { HookScope } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { RepoCreated } from '@cairn/proto/cairn/repos/v1/events';
import { Code, isCairnError } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import type { Handoff } from '../src/delivery/deliverer';
import { eventHandler, startEventConsumers } from '../src/events/consumers';
import type { DueTask } from '../src/store/tasks';
import { GIT_CONSUMER, ISSUES_CONSUMER, REPOS_CONSUMER } from '../src/events/streams';
import { MIGRATIONS_DIR } from '../src/index';
import type { HooksContext } from '../src/rpc/context';
import { createTestHook } from '../src/rpc/hook-tests';
import { addHistory, addRepository, addUser, fakeClients, fakeWorld, type FakeWorld } from './fake-clients';

const sha = (n: number) => n.toString(16).padStart(40, 'a');
const ZERO = '0'.repeat(40);

interface Harness {
  database: TestDatabase;
  db: Database;
  bus: Bus;
  sql: Client;
  world: FakeWorld;
  context: HooksContext;
  wakes: { count: number };
  consumers: Subscription[];
  workDir: string;
}

let h: Harness;

async function addHook(fields: { scope: string; repoId?: number; ownerId?: number; events: string[]; active?: boolean; type?: string; branchFilter?: string }): Promise<number> {
  const { rows } = await h.sql.query<{ id: string }>(
    `INSERT INTO hooks (scope, repo_id, owner_id, type, url, events, active, branch_filter) VALUES ($1, $2, $3, $4, 'http://receiver.test/', $5, $6, $7) RETURNING id`,
    [fields.scope, fields.repoId ?? null, fields.ownerId ?? null, fields.type ?? 'gitea', fields.events, fields.active ?? true, fields.branchFilter ?? ''],
  );
  return Number(rows[0].id);
}

/** Hook ids with a task of the payload of (event_id, event_type), in id order. */
async function taskHooks(eventId: string, eventType: string): Promise<number[]> {
  const { rows } = await h.sql.query<{ hook_id: string }>(
    `SELECT t.hook_id FROM hook_tasks t JOIN hook_payloads p ON p.id = t.payload_id WHERE p.event_id = $1 AND p.event_type = $2 ORDER BY t.hook_id`,
    [eventId, eventType],
  );
  return rows.map((row) => Number(row.hook_id));
}

async function countRows(table: 'hook_tasks' | 'hook_payloads' | 'hooks'): Promise<number> {
  const { rows } = await h.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0].n);
}

function message<T>(subject: string, type: EventEncoder<T>, event: T): BusMessage {
  return { id: uuidv7(), subject, data: encodeEvent(type, event), deliveryCount: 1 };
}

function push(repoId: number, ownerId: number, refUpdates: RefUpdate[]): GitPushed {
  return GitPushed.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 30, repoId }, pusherId: 30, repoId, repoOwnerId: ownerId, refUpdates });
}

function issueOpened(repoId: number): IssueEvent {
  const issue = Issue.fromPartial({ id: 500 + repoId, repoId, index: 1, posterId: 30, title: 'Hello', created: new Date(), updated: new Date() });
  return IssueEvent.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 30, repoId }, issue });
}

/** A deliverer without room: every task is written unclaimed and waits for a wake. */
const NO_ROOM: Handoff = { leaseMs: 0, take: () => 0, deliver() {}, release() {} };
const fakeDeliverer = (handoff: Handoff = NO_ROOM) => ({ wake: () => void h.wakes.count++, handoff: () => handoff, stop: () => Promise.resolve() });

const handle = (consumer: string, msg: BusMessage, deliverer = fakeDeliverer()) =>
  eventHandler(h.context, { config: h.context.config, logger: h.context.logger, clients: h.context.clients }, consumer, deliverer)(msg);

beforeAll(async () => {
  const database = await createTestDatabase('hooks');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-hooks-'));
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } });
  const logger = silentLogger();
  const db = await openDatabase({ url: database.url, schema: 'hooks', logger, migrationsDir: MIGRATIONS_DIR });
  await prepareOutbox(db);
  const bus = await createInProcessBus({ url: database.url, logger, pollMs: 50 });
  await bus.ensureStream('CAIRN_GIT', ['cairn.git.>']);
  await bus.ensureStream('CAIRN_ISSUES', ['cairn.issue.>', 'cairn.issue_comment.>', 'cairn.label.>', 'cairn.milestone.>', 'cairn.pull_request.>', 'cairn.pull_review.>']);
  await bus.ensureStream('CAIRN_REPOS', ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>', 'cairn.release.>']);
  const sql = new Client({ connectionString: database.url, options: '-c search_path=hooks' });
  await sql.connect();
  const world = fakeWorld();
  addUser(world, 10, 'alice');
  addUser(world, 20, 'acme');
  addUser(world, 30, 'carol');
  addRepository(world, { id: 1, ownerId: 10, ownerName: 'alice', name: 'tools' });
  addRepository(world, { id: 2, ownerId: 20, ownerName: 'acme', name: 'secret', private: true, ownerType: 1 });
  addRepository(world, { id: 3, ownerId: 10, ownerName: 'alice', name: 'other' });
  addRepository(world, { id: 4, ownerId: 10, ownerName: 'alice', name: 'new' });
  addHistory(world, [sha(1), sha(2), sha(3)]);
  const context: HooksContext = {
    db,
    logger,
    config: { server: config.server, service: config.service, webhook: config.webhook, security: { ...config.security, disableWebhooks: false } },
    clients: fakeClients(world),
  };
  const wakes = { count: 0 };
  const consumers = await startEventConsumers(context, bus, { wake: () => void wakes.count++, handoff: () => NO_ROOM, stop: () => Promise.resolve() });
  h = { database, db, bus, sql, world, context, wakes, consumers, workDir };
});

afterAll(async () => {
  await Promise.all(h.consumers.map((consumer) => consumer.stop()));
  await h.sql.end();
  await h.bus.close();
  await h.db.close();
  await h.database.drop();
  rmSync(h.workDir, { recursive: true, force: true });
});

beforeEach(async () => {
  await h.sql.query('TRUNCATE hook_tasks, hook_payloads, hooks RESTART IDENTITY CASCADE');
  h.context.config.security.disableWebhooks = false;
});

describe('published events', () => {
  it('a push reaches the repository, owner and system hooks that want it, honouring activity, branch filter and event choice', async () => {
    const repoHook = await addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    const ownerHook = await addHook({ scope: 'user', ownerId: 10, events: ['push'] });
    const systemHook = await addHook({ scope: 'system', events: ['push', 'create', 'issues'] });
    await addHook({ scope: 'repository', repoId: 1, events: ['push'], active: false });
    await addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    await addHook({ scope: 'organization', ownerId: 20, events: ['push'] });
    const releaseHook = await addHook({ scope: 'repository', repoId: 1, events: ['push'], branchFilter: 'release/*' });
    await addHook({ scope: 'repository', repoId: 1, events: ['issues_only'] });

    const toMain = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(1), newSha: sha(3) }]);
    await h.bus.publish('cairn.git.pushed', toMain.meta!.eventId, encodeEvent(GitPushed, toMain));
    const mainKey = `${toMain.meta!.eventId}:refs/heads/main`;
    await eventually(async () => expect(await taskHooks(mainKey, 'push')).toEqual([repoHook, ownerHook, systemHook]));
    const { rows } = await h.sql.query<{ event: string; payload: { total_commits: number; ref: string } }>(`SELECT event, payload FROM hook_payloads WHERE event_id = $1`, [mainKey]);
    expect(rows.map((row) => [row.event, row.payload.ref, row.payload.total_commits])).toEqual([['push', 'refs/heads/main', 2]]);

    const newRelease = push(1, 10, [{ ref: 'refs/heads/release/v1', oldSha: ZERO, newSha: sha(3) }]);
    await h.bus.publish('cairn.git.pushed', newRelease.meta!.eventId, encodeEvent(GitPushed, newRelease));
    const releaseKey = `${newRelease.meta!.eventId}:refs/heads/release/v1`;
    await eventually(async () => expect(await taskHooks(releaseKey, 'push')).toEqual([repoHook, ownerHook, systemHook, releaseHook]));
    expect(await taskHooks(releaseKey, 'create')).toEqual([systemHook]);
    expect(h.wakes.count).toBeGreaterThan(0);
  });

  it("an issue of a private repository reaches its organization's and system hooks only", async () => {
    const orgHook = await addHook({ scope: 'organization', ownerId: 20, events: ['issues'] });
    const systemHook = await addHook({ scope: 'system', events: ['issues'] });
    await addHook({ scope: 'user', ownerId: 10, events: ['issues'] });
    await addHook({ scope: 'repository', repoId: 1, events: ['issues'] });
    const event = issueOpened(2);
    await h.bus.publish('cairn.issue.opened', event.meta!.eventId, encodeEvent(IssueEvent, event));
    await eventually(async () => expect(await taskHooks(event.meta!.eventId, 'issues')).toEqual([orgHook, systemHook]));
    const { rows } = await h.sql.query<{ event: string; payload: { action: string; repository: { private: boolean } } }>(
      `SELECT event, payload FROM hook_payloads WHERE event_id = $1`,
      [event.meta!.eventId],
    );
    expect(rows.map((row) => [row.event, row.payload.action, row.payload.repository.private])).toEqual([['issues', 'opened', true]]);
  });
});

describe('handled messages', () => {
  it('a redelivered or republished event adds nothing; the payload is built once for every hook', async () => {
    await addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    await addHook({ scope: 'system', events: ['push'] });
    const event = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }]);
    const before = h.world.calls.get('listCommitsBetween') ?? 0;
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(h.world.calls.get('listCommitsBetween')).toBe(before + 1);
    expect([await countRows('hook_payloads'), await countRows('hook_tasks')]).toEqual([1, 2]);
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect([await countRows('hook_payloads'), await countRows('hook_tasks')]).toEqual([1, 2]);
  });

  it('hands the tasks the deliverer has room for over written claimed, the rest unclaimed with a wake', async () => {
    const first = await addHook({ scope: 'repository', repoId: 1, events: ['push'], branchFilter: '' });
    const second = await addHook({ scope: 'system', events: ['push'] });
    const handed: DueTask[] = [];
    let held = 0;
    const oneSlot: Handoff = {
      leaseMs: 60_000,
      take: (wanted) => {
        const granted = Math.min(wanted, 1 - held);
        held += granted;
        return granted;
      },
      deliver: (tasks) => void handed.push(...tasks),
      release: () => void (held = 0),
    };
    const wakes = h.wakes.count;
    const event = push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }]);
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event), fakeDeliverer(oneSlot));
    const { rows } = await h.sql.query<{ hook_id: string; uuid: string; attempts: number; leased: boolean }>(
      `SELECT hook_id, uuid, attempts, claimed_until > now() + interval '50 seconds' AS leased FROM hook_tasks ORDER BY hook_id`,
    );
    expect(rows.map((row) => [Number(row.hook_id), row.attempts, row.leased])).toEqual([
      [first, 1, true],
      [second, 0, null],
    ]);
    // The handed-over task is what a claim would have answered: its hook, its attempt, the payload as stored.
    expect(handed.map((task) => [task.hookId, task.uuid, task.attempts, task.hook.url, task.event, task.eventType])).toEqual([
      [first, rows[0].uuid, 1, 'http://receiver.test/', 'push', 'push'],
    ]);
    const { rows: stored } = await h.sql.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM hook_payloads`);
    expect(handed[0].payload).toEqual(stored[0].payload);
    expect(h.wakes.count).toBe(wakes + 1);
  });

  it('no hook wants it: nothing is built or stored', async () => {
    await addHook({ scope: 'repository', repoId: 1, events: ['issues'] });
    await addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    const before = h.world.calls.get('batchGetRepositories') ?? 0;
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(h.world.calls.get('batchGetRepositories') ?? 0).toBe(before);
    expect(await countRows('hook_payloads')).toBe(0);
  });

  it('a tag push sends its commit-less push to gitea hooks, not to chat hooks', async () => {
    const gitea = await addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    await addHook({ scope: 'repository', repoId: 1, events: ['push'], type: 'slack' });
    const event = push(1, 10, [{ ref: 'refs/tags/v1', oldSha: ZERO, newSha: sha(2) }]);
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, event));
    expect(await taskHooks(`${event.meta!.eventId}:refs/tags/v1`, 'push')).toEqual([gitea]);
  });

  it('DISABLE_WEB_HOOKS: events are acknowledged and nothing is created; later events deliver again', async () => {
    await addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    h.context.config.security.disableWebhooks = true;
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(await countRows('hook_payloads')).toBe(0);
    h.context.config.security.disableWebhooks = false;
    await handle(GIT_CONSUMER, message('cairn.git.pushed', GitPushed, push(1, 10, [{ ref: 'refs/heads/main', oldSha: sha(2), newSha: sha(3) }])));
    expect(await countRows('hook_tasks')).toBe(1);
  });

  it('unknown subjects are acknowledged and ignored', async () => {
    await addHook({ scope: 'system', events: ['push', 'issues', 'repository'] });
    await expect(handle(ISSUES_CONSUMER, { id: uuidv7(), subject: 'cairn.label.created', data: new Uint8Array([1, 2]), deliveryCount: 1 })).resolves.toBeUndefined();
    await expect(handle(REPOS_CONSUMER, { id: uuidv7(), subject: 'cairn.repo.forked', data: new TextEncoder().encode('not json'), deliveryCount: 1 })).resolves.toBeUndefined();
    expect(await countRows('hook_payloads')).toBe(0);
  });

  it('a new repository gets a copy of every default hook, once, and its repository event', async () => {
    await addHook({ scope: 'default', events: ['repository'] });
    await addHook({ scope: 'default', events: ['push'], active: false });
    const event = RepoCreated.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 10, repoId: 4 }, repository: h.world.repositories.get(4) });
    await handle(REPOS_CONSUMER, message('cairn.repo.created', RepoCreated, event));
    await handle(REPOS_CONSUMER, message('cairn.repo.created', RepoCreated, event));
    const { rows } = await h.sql.query<{ id: string; events: string[]; active: boolean }>(`SELECT id, events, active FROM hooks WHERE scope = 'repository' AND repo_id = 4 ORDER BY id`);
    expect(rows.map((row) => [row.events, row.active])).toEqual([
      [['repository'], true],
      [['push'], false],
    ]);
    expect(await taskHooks(event.meta!.eventId, 'repository')).toEqual([Number(rows[0].id)]);
  });
});

describe('TestHook', () => {
  it('delivers a push of the default branch to that hook only, inactive too', async () => {
    const inactive = await addHook({ scope: 'repository', repoId: 1, events: ['push'], active: false });
    await addHook({ scope: 'repository', repoId: 1, events: ['push'] });
    const wakes = h.wakes.count;
    h.world.history.set('main', h.world.history.get(sha(3))!);
    await createTestHook({ ...h.context, deliverer: { wake: () => void h.wakes.count++ } })(
      { owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 1, ownerId: 0 }, id: inactive, doerId: 30, ref: '' },
      undefined as never,
    );
    const { rows } = await h.sql.query<{ hook_id: string; event_type: string; payload: { before: string; after: string; commits: unknown[]; total_commits: number } }>(
      `SELECT t.hook_id, p.event_type, p.payload FROM hook_tasks t JOIN hook_payloads p ON p.id = t.payload_id`,
    );
    expect(rows.map((row) => [Number(row.hook_id), row.event_type, row.payload.before, row.payload.after, row.payload.commits.length, row.payload.total_commits])).toEqual([
      [inactive, 'push', sha(3), sha(3), 1, 1],
    ]);
    expect(h.wakes.count).toBe(wakes + 1);
  });

  it("answers NOT_FOUND for another repository's hook", async () => {
    const elsewhere = await addHook({ scope: 'repository', repoId: 3, events: ['push'] });
    const failure = await createTestHook(h.context)({ owner: { scope: HookScope.HOOK_SCOPE_REPOSITORY, repoId: 1, ownerId: 0 }, id: elsewhere, doerId: 30, ref: '' }, undefined as never).catch(
      (error: unknown) => error,
    );
    expect(isCairnError(failure) && failure.code === Code.NOT_FOUND).toBe(true);
  });
});
