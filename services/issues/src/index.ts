/**
 * @cairn/issues: issues, comments, labels, milestones, assignees, subscriptions, tracked times and stopwatches over
 * gRPC; events through the transactional outbox; consumers that take a deleted repository's issues along and apply
 * a deleted user's `[service] USER_DELETE_WITH_COMMENTS_MAX_TIME`. `start` runs the service inside any process
 * (the supervisor, tests); `main.ts` runs it alone.
 */
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, type Subscription, guardBus } from '@cairn/bus';
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { createRpcClient, type RpcClientHandle } from '@cairn/rpc';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { ISSUES_STREAM, ISSUES_SUBJECTS } from './events/subjects';
import { startAccountEventsConsumer, startOrgEventsConsumer } from './events/accounts-consumer';
import { startRepoEventsConsumer } from './events/repos-consumer';
import { startGitEventsConsumer, startPullEventsConsumer } from './events/git-consumer';
import { startCommitRefsConsumer } from './events/commit-refs-consumer';
import { startCommitStatusConsumer, startReviewEventsConsumer } from './events/auto-merge-consumer';
import { settleLeftMergeIntents } from './domain/pull-check';
import type { IssuesContext } from './rpc/context';
import { createIssuesServer } from './server';

export { ISSUES_STREAM, ISSUES_SUBJECTS, Subject, REPOS_CONSUMER, ACCOUNTS_CONSUMER } from './events/subjects';
export { createIssuesServer } from './server';
export type { IssuesContext } from './rpc/context';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'issues';
export const DATABASE_SCHEMA = 'issues';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.issues] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/** gRPC clients of accounts, git-storage and repos (`[services.<name>] ADDR`), and how to close them. */
function serviceContext(config: CairnConfig, logger: Logger, db: Database): { context: IssuesContext; close(): void } {
  const handles: RpcClientHandle[] = [];
  const client = <D extends Parameters<typeof createRpcClient>[0]>(definition: D, service: 'accounts' | 'git-storage' | 'repos') => {
    const created = createRpcClient(definition, { target: config.services[service].addr, service, caller: 'issues', logger, deadlineMs: config.rpc.deadlineMs });
    handles.push(created);
    return created;
  };
  const context: IssuesContext = {
    db,
    logger,
    config,
    users: client(UserServiceService, 'accounts'),
    teams: client(TeamServiceService, 'accounts'),
    git: { merge: client(MergeServiceService, 'git-storage'), refs: client(RefServiceService, 'git-storage') },
    repos: {
      repos: client(RepoServiceService, 'repos'),
      protections: client(BranchProtectionServiceService, 'repos'),
      statuses: client(CommitStatusServiceService, 'repos'),
      collaborators: client(CollaboratorServiceService, 'repos'),
    },
  };
  return { context, close: () => handles.forEach((handle) => handle.close()) };
}

/**
 * Starts issues in this process. Graceful stop (SIGTERM): health turns NOT_SERVING and the server takes no new
 * calls, calls in flight finish (up to 5 s), the consumers stop (the event in hand is finished and acknowledged),
 * the outbox relay flushes the events written meanwhile (up to 5 s), then the pool closes.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    await prepareOutbox(db);
    // Its own stream only: the consumers below bind to repos', accounts' and git-storage's as those define them.
    await bus.ensureStream(ISSUES_STREAM, [...ISSUES_SUBJECTS]);
    const relay = startOutboxRelay({ db, bus, logger });
    onStop(() => relay.stop());
    const { context, close } = serviceContext(config, logger, db);
    onStop(close);
    const consumers: Subscription[] = [];
    onStop(async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))));
    consumers.push(await startRepoEventsConsumer({ db, bus, logger }));
    consumers.push(await startAccountEventsConsumer({ db, bus, logger, userDeleteWithCommentsMaxTime: config.service.userDeleteWithCommentsMaxTime }));
    consumers.push(await startOrgEventsConsumer({ db, bus, logger }));
    consumers.push(await startGitEventsConsumer(context, bus));
    consumers.push(await startCommitRefsConsumer(context, bus));
    consumers.push(await startPullEventsConsumer(context, bus));
    consumers.push(await startCommitStatusConsumer(context, bus));
    consumers.push(await startReviewEventsConsumer(context, bus));
    const sweep = settleLeftMergeIntents(context).catch((error: unknown) => logger.warn({ err: error }, 'the merge intents sweep failed'));
    onStop(() => sweep);
    return createIssuesServer(context, logger);
  });
}
