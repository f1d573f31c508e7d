/**
 * @cairn/repos: repository metadata and every repository permission decision, over gRPC; events through the
 * transactional outbox; owners' facts kept current from accounts' events. `start` runs the service inside any
 * process (the supervisor, tests); `main.ts` runs it alone.
 */
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, type Subscription, guardBus } from '@cairn/bus';
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { AnalysisServiceService, RefServiceService, RepositoryServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { createRpcClient, type RpcClientHandle } from '@cairn/rpc';
import { openObjectStore } from '@cairn/storage';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { startAccountsConsumer } from './events/accounts-consumer';
import { startGitConsumer } from './events/git-consumer';
import { startIssuesConsumers } from './events/issues-consumer';
import { REPOS_STREAM, REPOS_SUBJECTS } from './events/subjects';
import { startAttachmentPurger } from './maintenance/purge-attachments';
import { startRepositoryPurger } from './maintenance/purge-repositories';
import type { ReposContext } from './rpc/context';
import { createReposServer } from './server';

export { REPOS_STREAM, REPOS_SUBJECTS, Subject, ACCOUNTS_CONSUMER, GIT_CONSUMER } from './events/subjects';
export { createReposServer } from './server';
export { accountsEventHandler, startAccountsConsumer } from './events/accounts-consumer';
export { gitPushedHandler, startGitConsumer } from './events/git-consumer';
export { commentDeletedHandler, issueDeletedHandler, startIssuesConsumers } from './events/issues-consumer';
export type { ReposContext } from './rpc/context';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'repos';
export const DATABASE_SCHEMA = 'repos';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.repos] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * gRPC clients of accounts and git-storage (`[services.<name>] ADDR`) and the attachments' object store
 * (`[attachment]` storage), and how to close them.
 */
function serviceClients(config: CairnConfig, logger: Logger, db: Database): { context: ReposContext; close(): Promise<void> } {
  const handles: RpcClientHandle[] = [];
  const deadlineMs = config.rpc.deadlineMs;
  const accounts = { target: config.services.accounts.addr, service: 'accounts', caller: 'repos', logger, deadlineMs } as const;
  const git = { target: config.services['git-storage'].addr, service: 'git-storage', caller: 'repos', logger, deadlineMs } as const;
  const keep = <T extends RpcClientHandle>(client: T): T => {
    handles.push(client);
    return client;
  };
  const objects = openObjectStore(config.attachment.storage);
  const context: ReposContext = {
    db,
    objects,
    logger,
    config,
    accounts: {
      users: keep(createRpcClient(UserServiceService, accounts)),
      orgs: keep(createRpcClient(OrgServiceService, accounts)),
      teams: keep(createRpcClient(TeamServiceService, accounts)),
    },
    git: {
      repositories: keep(createRpcClient(RepositoryServiceService, git)),
      refs: keep(createRpcClient(RefServiceService, git)),
      analysis: keep(createRpcClient(AnalysisServiceService, git)),
    },
  };
  return {
    context,
    close: async () => {
      handles.forEach((handle) => handle.close());
      await objects.close();
    },
  };
}

/**
 * Starts repos in this process. Graceful stop (SIGTERM): health turns NOT_SERVING and the server takes no new calls,
 * calls in flight finish (up to 5 s), the purger finishes the removal in hand, the consumers stop (the event in hand is
 * finished and acknowledged), the outbox relay flushes the events they all wrote (up to 5 s), then the clients and the
 * pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    const clients = serviceClients(config, logger, db);
    onStop(() => clients.close());
    await prepareOutbox(db);
    // Its own stream only: the consumers below bind to accounts' and git-storage's as those define them.
    await bus.ensureStream(REPOS_STREAM, [...REPOS_SUBJECTS]);
    const relay = startOutboxRelay({ db, bus, logger });
    onStop(() => relay.stop());
    const consumers: Subscription[] = [];
    onStop(async () => {
      for (const consumer of consumers) await consumer.stop();
    });
    consumers.push(await startAccountsConsumer(clients.context, { bus }));
    consumers.push(await startGitConsumer(clients.context, { bus }));
    consumers.push(...(await startIssuesConsumers(clients.context, { bus })));
    // Removes the git data of deletions committed earlier (and of creations that never committed), from start-up on.
    const purger = startRepositoryPurger(clients.context);
    onStop(() => purger.stop());
    // Removes the bytes of attachments whose rows went (what a deletion could not remove at once, owners' repositories).
    const attachmentPurger = startAttachmentPurger(clients.context);
    onStop(() => attachmentPurger.stop());
    return createReposServer(clients.context, logger);
  });
}
