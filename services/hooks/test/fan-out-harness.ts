/**
 * The fan-out on a test database, for fan-out.test.ts and public-stream.test.ts: hooks' schema and outbox, the
 * in-process bus with the three source streams and hooks' consumers on it, in-memory services (fake-clients.ts) with
 * a few users and repositories, and helpers to add hooks, hand messages to a consumer's handler and read what it wrote.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, type BusMessage, type EventEncoder, type Subscription, createInProcessBus, encodeEvent, prepareOutbox, uuidv7 } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { GitPushed, type RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import { IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { Issue } from '@cairn/proto/cairn/issues/v1/issues_service';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import type { Handoff } from '../src/delivery/deliverer';
import { eventHandler, startEventConsumers } from '../src/events/consumers';
import { MIGRATIONS_DIR } from '../src/index';
import type { HooksContext } from '../src/rpc/context';
import { addHistory, addRepository, addUser, fakeClients, fakeWorld, type FakeWorld } from './fake-clients';

export const sha = (n: number) => n.toString(16).padStart(40, 'a');
export const ZERO = '0'.repeat(40);

/** A deliverer without room: every task is written unclaimed and waits for a wake. */
export const NO_ROOM: Handoff = { leaseMs: 0, take: () => 0, deliver() {}, release() {} };

export interface HookFields {
  scope: string;
  repoId?: number;
  ownerId?: number;
  events: string[];
  active?: boolean;
  type?: string;
  branchFilter?: string;
}

/** A row of hooks' outbox: one public stream message. */
export interface OutboxRow {
  id: string;
  subject: string;
  data: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface FanOutHarness {
  database: TestDatabase;
  db: Database;
  /** The in-process bus on the test database: other processes on that database share its streams and consumers. */
  bus: Bus;
  sql: Client;
  world: FakeWorld;
  context: HooksContext;
  wakes: { count: number };
  consumers: Subscription[];
  fakeDeliverer(handoff?: Handoff): { wake(): void; handoff(): Handoff; stop(): Promise<void> };
  /** Hands a message to a consumer's handler, as the bus would. */
  handle(consumer: string, message: BusMessage, deliverer?: ReturnType<FanOutHarness['fakeDeliverer']>): Promise<void>;
  addHook(fields: HookFields): Promise<number>;
  /** Hook ids with a task of the payload of (event_id, event_type), in id order. */
  taskHooks(eventId: string, eventType: string): Promise<number[]>;
  countRows(table: 'hook_tasks' | 'hook_payloads' | 'hooks' | 'cairn_outbox'): Promise<number>;
  /** The outbox in the order it was written. */
  outbox(): Promise<OutboxRow[]>;
  /** Empties hooks, payloads, tasks, the outbox and the processed events; webhooks enabled, sign-in not required. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export function message<T>(subject: string, type: EventEncoder<T>, event: T): BusMessage {
  return { id: uuidv7(), subject, data: encodeEvent(type, event), deliveryCount: 1 };
}

export function push(repoId: number, ownerId: number, refUpdates: RefUpdate[]): GitPushed {
  return GitPushed.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 30, repoId }, pusherId: 30, repoId, repoOwnerId: ownerId, refUpdates });
}

export function issueOpened(repoId: number): IssueEvent {
  const issue = Issue.fromPartial({ id: 500 + repoId, repoId, index: 1, posterId: 30, title: 'Hello', created: new Date(), updated: new Date() });
  return IssueEvent.fromPartial({ meta: { eventId: uuidv7(), occurredAt: new Date(), actorId: 30, repoId }, issue });
}

/**
 * Users alice (10), acme (20, an organization), carol (30); repositories alice/tools (1), acme/secret (2, private),
 * alice/other (3), alice/new (4); a history of three commits. `consumers: false`: the consumers are not started
 * (a test runs them elsewhere first).
 */
export async function startFanOutHarness(options: { consumers?: boolean } = {}): Promise<FanOutHarness> {
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
    config: {
      server: config.server,
      service: { ...config.service, requireSigninView: false },
      webhook: config.webhook,
      security: { ...config.security, disableWebhooks: false },
    },
    clients: fakeClients(world),
  };
  const wakes = { count: 0 };
  const fakeDeliverer = (handoff: Handoff = NO_ROOM) => ({ wake: () => void wakes.count++, handoff: () => handoff, stop: () => Promise.resolve() });
  const consumers = options.consumers === false ? [] : await startEventConsumers(context, bus, fakeDeliverer());
  const count = async (table: string) => Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  return {
    database,
    db,
    bus,
    sql,
    world,
    context,
    wakes,
    consumers,
    fakeDeliverer,
    handle: (consumer, msg, deliverer = fakeDeliverer()) =>
      eventHandler(context, { config: context.config, logger: context.logger, clients: context.clients }, consumer, deliverer)(msg),
    async addHook(fields) {
      const { rows } = await sql.query<{ id: string }>(
        `INSERT INTO hooks (scope, repo_id, owner_id, type, url, events, active, branch_filter) VALUES ($1, $2, $3, $4, 'http://receiver.test/', $5, $6, $7) RETURNING id`,
        [fields.scope, fields.repoId ?? null, fields.ownerId ?? null, fields.type ?? 'gitea', fields.events, fields.active ?? true, fields.branchFilter ?? ''],
      );
      return Number(rows[0].id);
    },
    async taskHooks(eventId, eventType) {
      const { rows } = await sql.query<{ hook_id: string }>(
        `SELECT t.hook_id FROM hook_tasks t JOIN hook_payloads p ON p.id = t.payload_id WHERE p.event_id = $1 AND p.event_type = $2 ORDER BY t.hook_id`,
        [eventId, eventType],
      );
      return rows.map((row) => Number(row.hook_id));
    },
    countRows: count,
    async outbox() {
      const { rows } = await sql.query<{ id: string; subject: string; data: Buffer; headers: Record<string, string> }>(
        'SELECT id::text, subject, data, headers FROM cairn_outbox ORDER BY seq',
      );
      return rows.map((row) => ({ id: row.id, subject: row.subject, data: JSON.parse(row.data.toString('utf8')) as Record<string, unknown>, headers: row.headers }));
    },
    async reset() {
      await sql.query('TRUNCATE hook_tasks, hook_payloads, hooks, cairn_outbox, cairn_processed_events RESTART IDENTITY CASCADE');
      context.config.security.disableWebhooks = false;
      context.config.service.requireSigninView = false;
    },
    async stop() {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await sql.end();
      await bus.close();
      await db.close();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
