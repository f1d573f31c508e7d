/**
 * @cairn/notifications: users' activity (the heatmap) — later their notification threads and outgoing mail —
 * built from events and served over gRPC. `start` runs the service inside any process (the supervisor,
 * tests); `main.ts` runs it alone.
 */
import path from 'node:path';
import { prepareOutbox, type Subscription, guardBus } from '@cairn/bus';
import { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { IssueSubscriptionServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { CollaboratorServiceService, RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { createRpcClient } from '@cairn/rpc';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { startAccountsConsumer } from './events/accounts-consumer';
import { startActivityConsumer } from './events/activity-consumer';
import { type FanOutClients, startIssuesConsumer } from './events/issues-consumer';
import { startReposConsumer } from './events/repos-consumer';
import { startTransferConsumer } from './events/transfer-consumer';
import { startMail } from './mail/start';
import { createNotificationsServer } from './server';

export { ACTIVITY_CONSUMER, GIT_STREAM, GitSubject } from './events/git-stream';
export { gitPushedHandler, startActivityConsumer, type ActivityConsumerOptions } from './events/activity-consumer';
export { REPOS_CONSUMER, REPOS_STREAM, ReposSubject } from './events/repos-stream';
export { repoDeletedHandler, startReposConsumer, type ReposConsumerOptions } from './events/repos-consumer';
export { ISSUES_CONSUMER, ISSUES_STREAM, ACCOUNTS_CONSUMER } from './events/issues-stream';
export { issuesEventHandler, startIssuesConsumer, type FanOutClients, type IssuesConsumerOptions } from './events/issues-consumer';
export { startTransferConsumer, transferRequestedHandler, type TransferConsumerOptions } from './events/transfer-consumer';
export { TRANSFERS_CONSUMER } from './events/repos-stream';
export { createNotificationsServer } from './server';
export type { NotificationsContext } from './rpc/context';
export type { RepoAccess } from './repos/repo-access';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'notifications';
export const DATABASE_SCHEMA = 'notifications';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.notifications] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/** The clients the issues consumer asks who hears of an event (issues, social, accounts, repos), closed on stop. */
function fanOutClients({ config, logger }: StartOptions, onStop: (stop: () => void) => void): FanOutClients {
  const client = <D extends Parameters<typeof createRpcClient>[0]>(definition: D, service: 'accounts' | 'issues' | 'repos' | 'social') => {
    const created = createRpcClient(definition, { target: config.services[service].addr, service, caller: 'notifications', logger, deadlineMs: config.rpc.deadlineMs });
    onStop(() => created.close());
    return created;
  };
  return {
    subscriptions: client(IssueSubscriptionServiceService, 'issues'),
    watches: client(WatchServiceService, 'social'),
    teams: client(TeamServiceService, 'accounts'),
    collaborators: client(CollaboratorServiceService, 'repos'),
    repos: client(RepoServiceService, 'repos'),
  };
}

/**
 * Starts notifications in this process. It asks repos (`[services.repos] ADDR`) which repositories a viewer may
 * read, and issues, social, accounts and repos who hears of an issue event; the supervisor starts those first.
 * Graceful stop (SIGTERM): health turns NOT_SERVING and the server takes no new calls, calls in flight finish (up to
 * 5 s), then the consumers stop (the event in hand is finished and acknowledged; the rest stay on the bus for the
 * next instance), then the clients and the pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    const repos = createRpcClient(RepoServiceService, { target: config.services.repos.addr, service: 'repos', caller: 'notifications', logger, deadlineMs: config.rpc.deadlineMs });
    onStop(() => repos.close());
    // The consumers' processed-event ids live beside the outbox.
    await prepareOutbox(db);
    // Stopped after the consumers (releases run in reverse), so a consumer's last commit can still wake the sender.
    const mail = startMail({ db, config, logger });
    onStop(() => mail.stop());
    // Created before the consumers so that they close after the consumers have stopped (release runs in reverse).
    const clients = fanOutClients(options, onStop);
    // No stream of its own: the consumers bind to git-storage's, repos', issues' and accounts' as those define them.
    const consumers: Subscription[] = [];
    onStop(async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))));
    consumers.push(await startActivityConsumer({ db, bus, logger }));
    consumers.push(await startReposConsumer({ db, bus, logger }));
    consumers.push(await startIssuesConsumer({ db, bus, logger, clients, mailerEnabled: config.mailer.enabled, onMailQueued: mail.wake }));
    consumers.push(await startAccountsConsumer({ db, bus, logger }));
    consumers.push(await startTransferConsumer({ db, bus, logger, accounts: mail.accounts, mailEnabled: mail.mailEnabled, onMailQueued: mail.wake }));
    return createNotificationsServer({ db, repoAccess: repos }, logger);
  });
}
