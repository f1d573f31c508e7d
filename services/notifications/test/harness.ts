/**
 * Test helpers: GitPushed events as git-storage publishes them, RepoDeleted as repos does, a notifications service started with `start()`
 * on a fresh database and the in-process bus, asking an in-memory repos service (fake-repos.ts), and polling.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, createInProcessBus, encodeEvent, uuidv7 } from '@cairn/bus';
import { encodeEnvKey, loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { GitPushed, type RefUpdate } from '@cairn/proto/cairn/git/v1/events';
import { RepoDeleted } from '@cairn/proto/cairn/repos/v1/events';
import { ActivityServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import { createRpcClient, type RpcClient } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { GitSubject, start, type RunningService } from '../src/index';
import { type FakeRepos, startFakeRepos } from './fake-repos';

export const ZERO_SHA = '0'.repeat(40);

/** A branch update: one contribution. */
export function branchUpdate(name = 'main'): RefUpdate {
  return { ref: `refs/heads/${name}`, oldSha: 'a'.repeat(40), newSha: 'b'.repeat(40) };
}

export interface PushFields {
  pusherId: number;
  repoId?: number;
  pushedAt?: Date;
  refUpdates?: RefUpdate[];
  eventId?: string;
}

export function gitPushed(fields: PushFields): GitPushed {
  const eventId = fields.eventId ?? uuidv7();
  const pushedAt = fields.pushedAt ?? new Date();
  const repoId = fields.repoId ?? 1;
  return GitPushed.create({
    meta: { eventId, occurredAt: pushedAt, actorId: fields.pusherId, repoId },
    pusherId: fields.pusherId,
    repoId,
    repoOwnerId: fields.pusherId,
    refUpdates: fields.refUpdates ?? [branchUpdate()],
    commitCount: 1,
    pushedAt,
  });
}

/** Publishes like the producer: the event id is the message id unless another is given. */
export async function publishPush(bus: Bus, subject: string, event: GitPushed, messageId = event.meta!.eventId): Promise<void> {
  await bus.publish(subject, messageId, encodeEvent(GitPushed, event));
}

/** A repository deletion as repos publishes it. */
export function repoDeleted(repoId: number, eventId = uuidv7()): RepoDeleted {
  return RepoDeleted.create({
    meta: { eventId, occurredAt: new Date(), actorId: 1, repoId },
    repoId,
    ownerId: 1,
    ownerName: 'owner',
    name: `repo${repoId}`,
    private: false,
  });
}

/** Publishes like the producer: the event id is the message id unless another is given. */
export async function publishRepoDeleted(bus: Bus, subject: string, event: RepoDeleted, messageId = event.meta!.eventId): Promise<void> {
  await bus.publish(subject, messageId, encodeEvent(RepoDeleted, event));
}

export interface ServiceHarness {
  bus: Bus;
  /** The repos service notifications asks: set who may read what in `repos.readable`. */
  repos: FakeRepos;
  service: RunningService;
  activity: RpcClient<typeof ActivityServiceService>;
  /** A plain connection to the test database (search_path = notifications). */
  sql: Client;
  publish(event: GitPushed): Promise<void>;
  stop(): Promise<void>;
}

/** The streams notifications consumes, as their producers (git-storage, repos) define them: consumers never do. */
export const PRODUCER_STREAMS: ReadonlyArray<[string, string[]]> = [
  ['CAIRN_GIT', ['cairn.git.>']],
  ['CAIRN_REPOS', ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>']],
];

/** notifications as the supervisor runs it in embedded mode: `start()` with the in-process bus. */
export async function startService(): Promise<ServiceHarness> {
  const database: TestDatabase = await createTestDatabase('notifications');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-notifications-'));
  const repos = await startFakeRepos();
  const { config } = loadConfig({
    env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url, [encodeEnvKey('services.repos', 'ADDR')]: repos.addr },
  });
  const logger = silentLogger();
  const bus = await createInProcessBus({ url: database.url, logger });
  for (const [name, subjects] of PRODUCER_STREAMS) await bus.ensureStream(name, subjects);
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const activity = createRpcClient(ActivityServiceService, { target: `127.0.0.1:${service.port}`, service: 'notifications', caller: 'gateway', logger });
  const sql = new Client({ connectionString: database.url, options: '-c search_path=notifications' });
  await sql.connect();
  return {
    bus,
    repos,
    service,
    activity,
    sql,
    publish: (event) => publishPush(bus, GitSubject.pushed, event),
    async stop() {
      activity.close();
      await sql.end();
      await service.stop();
      await bus.close();
      await repos.stop();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
