/**
 * @cairn/accounts: users and personal access tokens over gRPC, events through the transactional outbox.
 * `start` runs the service inside any process (the supervisor, tests); `main.ts` runs it alone.
 */
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, guardBus } from '@cairn/bus';
import { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { createRpcClient } from '@cairn/rpc';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { PasswordCheckQueue } from './domain/password-queue';
import { BUS_USAGE } from './events/bus-usage';
import { ACCOUNTS_STREAM, ACCOUNTS_SUBJECTS } from './events/subjects';
import { settingsFromConfig } from './rpc/context';
import { createAccountsServer } from './server';

export { ACCOUNTS_STREAM, ACCOUNTS_SUBJECTS, Subject } from './events/subjects';
export { createAccountsServer } from './server';
export { settingsFromConfig, type AccountsContext, type AccountsSettings } from './rpc/context';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'accounts';
export const DATABASE_SCHEMA = 'accounts';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.accounts] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts accounts in this process. Graceful stop (SIGTERM): health turns NOT_SERVING and the server takes no
 * new calls, calls in flight finish (up to 5 s), the outbox relay flushes the events they wrote (up to 5 s),
 * then the repos client and the pool close. A service with bus consumers stops them after the server and
 * before the relay, so events their last handlers wrote are flushed too.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    // Connects on its first call: repos may start after accounts (and calls accounts itself).
    const repos = createRpcClient(RepoServiceService, { target: config.services.repos.addr, service: 'repos', caller: 'accounts', logger, deadlineMs: config.rpc.deadlineMs });
    onStop(() => repos.close());
    await prepareOutbox(db);
    await bus.ensureStream(ACCOUNTS_STREAM, [...ACCOUNTS_SUBJECTS]);
    const relay = startOutboxRelay({ db, bus, logger });
    onStop(() => relay.stop());
    const passwordChecks = new PasswordCheckQueue(config.security.passwordCheckConcurrency, config.security.passwordCheckQueue);
    return createAccountsServer({ db, settings: settingsFromConfig(config), repos, passwordChecks }, logger);
  });
}
