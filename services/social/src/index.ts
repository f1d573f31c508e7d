/**
 * @cairn/social: stars, watches and reactions (later follows) over gRPC, events through the transactional outbox,
 * and the consumers that watch new repositories for their creators, forget deleted repositories' and users'
 * stars, watches and reactions and deleted issues' and comments' reactions, and keep reactions' user names
 * current. `start` runs the service inside any process (the supervisor, tests); `main.ts` runs it alone.
 */
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, type Subscription, guardBus } from '@cairn/bus';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { startIssueEventsConsumers } from './events/issues-consumer';
import { startRepoEventsConsumer } from './events/repos-consumer';
import { SOCIAL_STREAM, SOCIAL_SUBJECTS } from './events/subjects';
import { startUserEventsConsumer } from './events/users-consumer';
import { createSocialServer } from './server';

export {
  ACCOUNTS_STREAM,
  COMMENTS_CONSUMER,
  ConsumedSubject,
  ISSUES_CONSUMER,
  ISSUES_STREAM,
  REPOS_CONSUMER,
  REPOS_STREAM,
  USERS_CONSUMER,
} from './events/consumed';
export { commentDeletedHandler, issueDeletedHandler, startIssueEventsConsumers } from './events/issues-consumer';
export { repoEventsHandler, startRepoEventsConsumer } from './events/repos-consumer';
export { SOCIAL_STREAM, SOCIAL_SUBJECTS, Subject } from './events/subjects';
export { startUserEventsConsumer, userEventsHandler } from './events/users-consumer';
export { createSocialServer } from './server';
export type { SocialContext } from './rpc/context';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'social';
export const DATABASE_SCHEMA = 'social';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.social] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts social in this process. It binds to repos', accounts' and issues' streams, which only their producers
 * create; a consumer started before its producer binds once the stream exists (@cairn/bus binding.ts). Graceful
 * stop (SIGTERM): health turns NOT_SERVING and the server takes no new calls, calls in flight finish (up to 5 s), the
 * consumers stop (the event in hand is finished and acknowledged), the outbox relay flushes the events written
 * meanwhile (up to 5 s), then the pool closes.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    await prepareOutbox(db);
    await bus.ensureStream(SOCIAL_STREAM, [...SOCIAL_SUBJECTS]);
    const relay = startOutboxRelay({ db, bus, logger });
    onStop(() => relay.stop());
    const consumers: Subscription[] = [];
    onStop(async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))));
    consumers.push(await startRepoEventsConsumer({ db, bus, logger, autoWatchNewRepos: config.service.autoWatchNewRepos }));
    consumers.push(await startUserEventsConsumer({ db, bus, logger }));
    consumers.push(...(await startIssueEventsConsumers({ db, bus, logger })));
    return createSocialServer({ db, allowedReactions: config.ui.reactions }, logger);
  });
}
