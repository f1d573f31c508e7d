/**
 * Test harness: accounts started with `start()` on a fresh database, a bus that records what the outbox
 * relay publishes, a fake repos service, gRPC clients, and a direct connection for looking at the tables.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Bus } from '@cairn/bus';
import { encodeEnvKey, loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { AccessTokenServiceService, type CreateUserRequest, type User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { createRpcClient, type RpcClient } from '@cairn/rpc';
import { createTestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { start, type RunningService } from '../src/index';
import { startFakeRepos, type FakeRepos } from './fake-repos';

export interface PublishedEvent {
  subject: string;
  id: string;
  data: Uint8Array;
}

export interface RecordingBus extends Bus {
  streams: Array<{ name: string; subjects: string[] }>;
  published: PublishedEvent[];
}

/** A Bus that keeps what is published; accounts consumes nothing. */
export function recordingBus(): RecordingBus {
  const bus: RecordingBus = {
    streams: [],
    published: [],
    async ensureStream(name, subjects) {
      bus.streams.push({ name, subjects });
    },
    async publish(subject, id, data) {
      bus.published.push({ subject, id, data });
    },
    async consume(): Promise<never> {
      throw new Error('accounts consumes nothing');
    },
    async subscribe(): Promise<never> {
      throw new Error('accounts subscribes to nothing');
    },
    async close() {},
  };
  return bus;
}

export interface OutboxRow {
  id: string;
  subject: string;
  data: Buffer;
}

export interface Harness {
  users: RpcClient<typeof UserServiceService>;
  tokens: RpcClient<typeof AccessTokenServiceService>;
  orgs: RpcClient<typeof OrgServiceService>;
  teams: RpcClient<typeof TeamServiceService>;
  bus: RecordingBus;
  /** What accounts asks about repositories (before deleting an owner). */
  repos: FakeRepos;
  service: RunningService;
  /** A plain connection to the test database (search_path = accounts). */
  sql: Client;
  outbox(): Promise<OutboxRow[]>;
  /** Creates an active user `<username>@example.com` with password `password-123`, unless `fields` say otherwise. */
  createUser(username: string, fields?: Partial<CreateUserRequest>): Promise<User>;
  /** A second accounts process on the same database and settings (a replica), with its UserService client. */
  startReplica(): Promise<Replica>;
  stop(): Promise<void>;
}

export interface Replica {
  users: RpcClient<typeof UserServiceService>;
  stop(): Promise<void>;
}

/** The Actor `user` calls with. */
export const actor = (user: User): Actor => ({ userId: user.id, isAdmin: user.isAdmin, isRestricted: user.restricted });

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const database = await createTestDatabase('accounts');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-accounts-'));
  const repos = await startFakeRepos();
  const { config } = loadConfig({
    env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url, [encodeEnvKey('services.repos', 'ADDR')]: repos.addr, ...env },
  });
  const logger = silentLogger();
  const bus = recordingBus();
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  const users = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger });
  const tokens = createRpcClient(AccessTokenServiceService, { target, service: 'accounts', caller: 'gateway', logger });
  const orgs = createRpcClient(OrgServiceService, { target, service: 'accounts', caller: 'gateway', logger });
  const teams = createRpcClient(TeamServiceService, { target, service: 'accounts', caller: 'gateway', logger });
  const sql = new Client({ connectionString: database.url, options: '-c search_path=accounts' });
  await sql.connect();
  return {
    users,
    tokens,
    orgs,
    teams,
    bus,
    repos,
    service,
    sql,
    async outbox() {
      const result = await sql.query<OutboxRow>('SELECT id::text AS id, subject, data FROM cairn_outbox ORDER BY seq');
      return result.rows;
    },
    async createUser(username, fields = {}) {
      const { user } = await users.createUser({
        username,
        email: `${username}@example.com`,
        password: 'password-123',
        fullName: '',
        loginName: '',
        sourceId: 0,
        mustChangePassword: false,
        restricted: false,
        visibility: '',
        isAdmin: false,
        actorId: 0,
        ...fields,
      });
      return user!;
    },
    async startReplica() {
      const replica = await start({ config, logger, bus: recordingBus(), listen: '127.0.0.1:0' });
      const replicaUsers = createRpcClient(UserServiceService, { target: `127.0.0.1:${replica.port}`, service: 'accounts', caller: 'gateway', logger });
      return {
        users: replicaUsers,
        async stop() {
          replicaUsers.close();
          await replica.stop();
        },
      };
    },
    async stop() {
      for (const client of [users, tokens, orgs, teams]) client.close();
      await sql.end();
      await service.stop();
      await repos.stop();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
