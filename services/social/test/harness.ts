/**
 * Test helpers: social started with `start()` on a fresh database and the in-process bus (as the supervisor
 * runs it in embedded mode, after repos, accounts and issues have declared their streams), gRPC clients, the events
 * it wrote to its outbox, and the events of repos, accounts and issues that social consumes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bus, createInProcessBus, decodeEvent, encodeEvent, uuidv7, type EventDecoder } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { UserDeleted, UserRenamed } from '@cairn/proto/cairn/accounts/v1/events';
import { IssueCommentEvent, IssueEvent } from '@cairn/proto/cairn/issues/v1/events';
import { RepoCreated, RepoDeleted, RepoForked } from '@cairn/proto/cairn/repos/v1/events';
import { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { ReactionServiceService, StarServiceService, WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { ImportServiceService } from '@cairn/proto/cairn/social/v1/import_service';
import { createRpcClient, type RpcClient } from '@cairn/rpc';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { ACCOUNTS_STREAM, ConsumedSubject, ISSUES_STREAM, REPOS_STREAM, start, type RunningService } from '../src/index';

/** The producers' streams, as repos, accounts and issues declare them. */
export const PRODUCER_STREAMS: ReadonlyArray<[string, string[]]> = [
  [ISSUES_STREAM, ['cairn.issue.>', 'cairn.issue_comment.>', 'cairn.label.>', 'cairn.milestone.>', 'cairn.pull_request.>', 'cairn.pull_review.>']],
  [REPOS_STREAM, ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>']],
  [ACCOUNTS_STREAM, ['cairn.user.>', 'cairn.access_token.>', 'cairn.org.>', 'cairn.org_member.>', 'cairn.team.>', 'cairn.team_member.>']],
];

export interface ServiceHarness {
  bus: Bus;
  service: RunningService;
  stars: RpcClient<typeof StarServiceService>;
  watches: RpcClient<typeof WatchServiceService>;
  reactions: RpcClient<typeof ReactionServiceService>;
  /** ImportService as its one caller, migrations, calls it. */
  imports: RpcClient<typeof ImportServiceService>;
  /** A plain connection to the test database (search_path = social). */
  sql: Client;
  /** The events social wrote to its outbox after outbox row `afterSeq`, oldest first. */
  outbox(afterSeq?: number): Promise<OutboxRow[]>;
  /** The outbox's last row number (0 when empty). */
  lastSeq(): Promise<number>;
  /** A repository `repoId` created (or, with `forkOf`, forked) by `creatorId`. */
  publishRepoCreated(repoId: number, creatorId: number, options?: { forkOf?: number; eventId?: string }): Promise<string>;
  publishRepoDeleted(repoId: number, eventId?: string): Promise<string>;
  publishUserDeleted(userId: number, eventId?: string): Promise<string>;
  /** `version`: the account's version after the rename (accounts' events carry it; 0 for none). */
  publishUserRenamed(userId: number, login: string, eventId?: string, version?: number): Promise<string>;
  /** Issue `issueId` of repository `repoId` was deleted. */
  publishIssueDeleted(repoId: number, issueId: number, eventId?: string): Promise<string>;
  /** Comment `commentId` on issue `issueId` of repository `repoId` was deleted. */
  publishCommentDeleted(repoId: number, issueId: number, commentId: number, eventId?: string): Promise<string>;
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

/** `env` adds configuration (e.g. `CAIRN__service__AUTO_WATCH_NEW_REPOS`). */
export async function startService(env: Record<string, string> = {}): Promise<ServiceHarness> {
  const database: TestDatabase = await createTestDatabase('social');
  const workDir = mkdtempSync(path.join(tmpdir(), 'cairn-social-'));
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url, ...env } });
  const logger = silentLogger();
  const bus = await createInProcessBus({ url: database.url, logger });
  for (const [name, subjects] of PRODUCER_STREAMS) await bus.ensureStream(name, subjects);
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  const stars = createRpcClient(StarServiceService, { target, service: 'social', caller: 'gateway', logger });
  const watches = createRpcClient(WatchServiceService, { target, service: 'social', caller: 'gateway', logger });
  const reactions = createRpcClient(ReactionServiceService, { target, service: 'social', caller: 'gateway', logger });
  const imports = createRpcClient(ImportServiceService, { target, service: 'social', caller: 'migrations', logger });
  const sql = new Client({ connectionString: database.url, options: '-c search_path=social' });
  await sql.connect();
  return {
    bus,
    service,
    stars,
    watches,
    reactions,
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
    async publishRepoCreated(repoId, creatorId, { forkOf, eventId = uuidv7() } = {}) {
      const meta = { eventId, occurredAt: new Date(), actorId: creatorId, repoId };
      const repository = Repository.fromPartial({ id: repoId, ownerId: creatorId, name: `repo${repoId}`, fork: forkOf !== undefined, parentId: forkOf ?? 0 });
      if (forkOf === undefined) {
        await bus.publish(ConsumedSubject.repoCreated, eventId, encodeEvent(RepoCreated, RepoCreated.fromPartial({ meta, repository })));
      } else {
        const forked = RepoForked.fromPartial({ meta, repository, baseRepoId: forkOf });
        await bus.publish(ConsumedSubject.repoForked, eventId, encodeEvent(RepoForked, forked));
      }
      return eventId;
    },
    async publishRepoDeleted(repoId, eventId = uuidv7()) {
      const event = RepoDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId }, repoId });
      await bus.publish(ConsumedSubject.repoDeleted, eventId, encodeEvent(RepoDeleted, event));
      return eventId;
    },
    async publishUserDeleted(userId, eventId = uuidv7()) {
      const event = UserDeleted.fromPartial({ meta: { eventId, occurredAt: new Date(), actorId: 1, repoId: 0 }, userId, login: `user${userId}` });
      await bus.publish(ConsumedSubject.userDeleted, eventId, encodeEvent(UserDeleted, event));
      return eventId;
    },
    async publishUserRenamed(userId, login, eventId = uuidv7(), version = 0) {
      const meta = { eventId, occurredAt: new Date(), actorId: userId, repoId: 0 };
      const event = UserRenamed.fromPartial({ meta, user: { id: userId, login }, oldLogin: `user${userId}`, version });
      await bus.publish(ConsumedSubject.userRenamed, eventId, encodeEvent(UserRenamed, event));
      return eventId;
    },
    async publishIssueDeleted(repoId, issueId, eventId = uuidv7()) {
      const meta = { eventId, occurredAt: new Date(), actorId: 1, repoId };
      const event = IssueEvent.fromPartial({ meta, issue: { id: issueId, repoId, index: issueId } });
      await bus.publish(ConsumedSubject.issueDeleted, eventId, encodeEvent(IssueEvent, event));
      return eventId;
    },
    async publishCommentDeleted(repoId, issueId, commentId, eventId = uuidv7()) {
      const meta = { eventId, occurredAt: new Date(), actorId: 1, repoId };
      const event = IssueCommentEvent.fromPartial({ meta, issue: { id: issueId, repoId }, comment: { id: commentId, repoId, issueId } });
      await bus.publish(ConsumedSubject.commentDeleted, eventId, encodeEvent(IssueCommentEvent, event));
      return eventId;
    },
    async stop() {
      stars.close();
      watches.close();
      reactions.close();
      imports.close();
      await sql.end();
      await service.stop();
      await bus.close();
      await database.drop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
