/**
 * Test helpers: issues started with `start()` on a fresh database and the in-process bus (as the supervisor runs it
 * in embedded mode), gRPC clients of every issues service, the events it wrote to its outbox, RepoScopes for made-up
 * repositories and viewers (as the gateway would hand them over after asking repos), and the repos/accounts events
 * its consumers read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, createInProcessBus, decodeEvent, encodeEvent, uuidv7, type EventDecoder } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { UserDeleted } from '@cairn/proto/cairn/accounts/v1/events';
import { GitPushed } from '@cairn/proto/cairn/git/v1/events';
import {
  CommentServiceService,
  IssueServiceService,
  IssueSubscriptionServiceService,
  LabelServiceService,
  MilestoneServiceService,
  type RepoScope,
  TimeTrackingServiceService,
} from '@cairn/proto/cairn/issues/v1/issues_service';
import { ImportServiceService } from '@cairn/proto/cairn/issues/v1/import_service';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type AsyncServiceOf, CairnError, Code, createRpcClient, type RpcClient, type RpcServer } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { start, type RunningService } from '../src/index';

export interface ServiceHarness {
  bus: Bus;
  service: RunningService;
  issues: RpcClient<typeof IssueServiceService>;
  labels: RpcClient<typeof LabelServiceService>;
  milestones: RpcClient<typeof MilestoneServiceService>;
  comments: RpcClient<typeof CommentServiceService>;
  subscriptions: RpcClient<typeof IssueSubscriptionServiceService>;
  times: RpcClient<typeof TimeTrackingServiceService>;
  /** ImportService as its one caller, migrations, calls it. */
  imports: RpcClient<typeof ImportServiceService>;
  /** A plain connection to the test database (search_path = issues). */
  sql: Client;
  /** The events issues wrote to its outbox after outbox row `afterSeq`, oldest first. */
  outbox(afterSeq?: number): Promise<OutboxRow[]>;
  /** The outbox's last row number (0 when empty). */
  lastSeq(): Promise<number>;
  publishRepoDeleted(repoId: number, eventId?: string): Promise<string>;
  publishUserDeleted(userId: number, eventId?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface OutboxRow {
  seq: number;
  id: string;
  subject: string;
  data: Uint8Array;
}

export function decoded<T>(type: EventDecoder<T>, row: OutboxRow): T {
  return decodeEvent(type, row.data);
}

/** Every method of a service a fake server stands in for, answering UNIMPLEMENTED: spread the ones a test needs over it. */
export function unimplemented<D extends Parameters<RpcServer['addService']>[0]>(definition: D): AsyncServiceOf<D> {
  return Object.fromEntries(
    Object.keys(definition).map((key) => [
      key,
      async () => {
        throw new CairnError(Code.UNIMPLEMENTED, `${key} is not part of this test`);
      },
    ]),
  ) as unknown as AsyncServiceOf<D>;
}

/** Publishes cairn.git.pushed for one reference, as git-storage does after a push (old: a new reference); the event id. */
export async function publishPush(
  bus: Bus,
  push: { repoId: number; pusherId: number; ref: string; newSha: string; oldSha?: string },
): Promise<string> {
  const eventId = uuidv7();
  const event = GitPushed.fromPartial({
    meta: { eventId, occurredAt: new Date(), actorId: push.pusherId, repoId: push.repoId },
    pusherId: push.pusherId,
    repoId: push.repoId,
    repoOwnerId: 100,
    refUpdates: [{ ref: push.ref, oldSha: push.oldSha ?? '0'.repeat(40), newSha: push.newSha }],
    pushedAt: new Date(),
  });
  await bus.publish('cairn.git.pushed', eventId, encodeEvent(GitPushed, event));
  return eventId;
}

/** Reads until `done` accepts what was read: for what a consumer does after the call that caused it has returned. */
export function readUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return eventually(async () => {
    const value = await read();
    if (!done(value)) throw new Error('not there yet');
    return value;
  });
}

/** Access modes as repos' Permission names them. */
export type Mode = 'none' | 'read' | 'write' | 'admin' | 'owner';

export interface ScopeOptions {
  /** The viewer's user id; 0 = anonymous. */
  userId: number;
  /** The viewer's mode on every unit and overall; default 'read'. */
  mode?: Mode;
  isAdmin?: boolean;
  repoId?: number;
  ownerId?: number;
  ownerName?: string;
  repoName?: string;
  private?: boolean;
  archived?: boolean;
  /** Enabled units; default code, issues, pulls. */
  units?: string[];
  enableTimeTracker?: boolean;
  allowOnlyContributorsToTrackTime?: boolean;
}

/** A RepoScope as the gateway would send it for a repository repos said the viewer has `mode` in. */
export function scope(options: ScopeOptions): RepoScope {
  const { userId, mode = 'read', isAdmin = false, repoId = 1, ownerId = 100 } = options;
  const units = options.units ?? ['repo.code', 'repo.issues', 'repo.pulls'];
  const repository = Repository.fromPartial({
    id: repoId,
    ownerId,
    ownerName: options.ownerName ?? `owner${ownerId}`,
    ownerVisibility: 'public',
    name: options.repoName ?? `repo${repoId}`,
    private: options.private ?? false,
    archived: options.archived ?? false,
    units: units.map((key) => ({ key })),
    enableTimeTracker: options.enableTimeTracker ?? true,
    allowOnlyContributorsToTrackTime: options.allowOnlyContributorsToTrackTime ?? true,
    defaultBranch: 'main',
  });
  return {
    viewer: userId > 0 ? { userId, isAdmin, isRestricted: false } : undefined,
    repository: { repository, permission: { accessMode: mode, units: Object.fromEntries(units.map((key) => [key, mode])) } },
  };
}

/** The streams issues consumes, as their producers (repos, accounts, git-storage) define them: consumers never do. */
export const PRODUCER_STREAMS: ReadonlyArray<[string, string[]]> = [
  ['CAIRN_REPOS', ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>']],
  ['CAIRN_ACCOUNTS', ['cairn.user.>', 'cairn.access_token.>', 'cairn.org.>', 'cairn.org_member.>', 'cairn.team.>', 'cairn.team_member.>']],
  ['CAIRN_GIT', ['cairn.git.>']],
];

/** `env` adds configuration (e.g. `CAIRN__service__USER_DELETE_WITH_COMMENTS_MAX_TIME`). */
export async function startService(env: Record<string, string> = {}): Promise<ServiceHarness> {
  const database: TestDatabase = await createTestDatabase('issues');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-issues-'));
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url, ...env } });
  const logger = silentLogger();
  const bus = await createInProcessBus({ url: database.url, logger });
  for (const [name, subjects] of PRODUCER_STREAMS) await bus.ensureStream(name, subjects);
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  const options = { target, service: 'issues', caller: 'gateway', logger } as const;
  const issues = createRpcClient(IssueServiceService, options);
  const labels = createRpcClient(LabelServiceService, options);
  const milestones = createRpcClient(MilestoneServiceService, options);
  const comments = createRpcClient(CommentServiceService, options);
  const subscriptions = createRpcClient(IssueSubscriptionServiceService, options);
  const times = createRpcClient(TimeTrackingServiceService, options);
  const imports = createRpcClient(ImportServiceService, { ...options, caller: 'migrations' });
  const clients = [issues, labels, milestones, comments, subscriptions, times, imports];
  const sql = new Client({ connectionString: database.url, options: '-c search_path=issues' });
  await sql.connect();
  return {
    bus,
    service,
    issues,
    labels,
    milestones,
    comments,
    subscriptions,
    times,
    imports,
    sql,
    async outbox(afterSeq = 0) {
      const { rows } = await sql.query<{ seq: string; id: string; subject: string; data: Buffer }>(
        'SELECT seq, id, subject, data FROM cairn_outbox WHERE seq > $1 ORDER BY seq',
        [afterSeq],
      );
      return rows.map((row) => ({ seq: Number(row.seq), id: row.id, subject: row.subject, data: new Uint8Array(row.data) }));
    },
    async lastSeq() {
      const { rows } = await sql.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM cairn_outbox');
      return Number(rows[0].seq ?? 0);
    },
    async publishRepoDeleted(repoId, eventId = uuidv7()) {
      const event = RepoDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId }, repoId });
      await bus.publish('cairn.repo.deleted', eventId, encodeEvent(RepoDeleted, event));
      return eventId;
    },
    async publishUserDeleted(userId, eventId = uuidv7()) {
      const event = UserDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: 0 }, userId, login: `user${userId}` });
      await bus.publish('cairn.user.deleted', eventId, encodeEvent(UserDeleted, event));
      return eventId;
    },
    async stop() {
      for (const client of clients) client.close();
      await sql.end();
      await service.stop();
      await bus.close();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
