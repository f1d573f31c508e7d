/**
 * @cairn/git-storage: the bare repositories on disk and every git operation on them, over gRPC; cairn.git.*
 * events through the transactional outbox. `start` runs the service inside any process (the supervisor, tests);
 * `main.ts` runs it alone. Its schema holds the outbox and, per repository, the branches and tags as its last
 * cairn.git.pushed left them (db/migrations): the data itself is the repositories.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, guardBus } from '@cairn/bus';
import { migrationPolicy } from '@cairn/outbound';
import { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { createRpcClient } from '@cairn/rpc';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { createPushPublisher } from './events/push-publisher';
import { reconcilePushed } from './events/pushed';
import { GIT_STREAM, GIT_SUBJECTS } from './events/subjects';
import { setGitProcessLimits } from './git/command';
import { ConcurrencyLimit } from './git/concurrency-limit';
import { createInstanceSigning } from './git/signing';
import { PushGcExclusion } from './git/push-gc-exclusion';
import { startGitGc } from './maintenance/gc-repositories';
import { startHookServer } from './push/hook-server';
import { licenseMatchers } from './templates/catalog';
import { createGitStorageServer } from './server';

export { GIT_STREAM, GIT_SUBJECTS, GitSubject } from './events/subjects';
export { createGitStorageServer } from './server';
export type { GitStorageContext } from './rpc/context';
export { repositoryPath } from './storage/layout';

export { BUS_USAGE } from './events/bus-usage';
export const SERVICE_NAME = 'git-storage';
export const DATABASE_SCHEMA = 'git_storage';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

/** `listen` defaults to `[services.git-storage] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts git-storage in this process: repositories under `<CAIRN_WORK_DIR>/repositories`. Before it serves, it
 * publishes the ref changes whose cairn.git.pushed the last run did not write (events/pushed.ts reconcilePushed).
 * Graceful stop (SIGTERM): health turns NOT_SERVING and the server takes no new calls, calls in flight (clones,
 * pushes) finish (up to 5 s), the hook socket closes, the events of pushes whose call ended early are written, the
 * outbox relay flushes the pushes' events (up to 5 s), then the accounts client and the pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  const root = path.join(config.workDir, 'repositories');
  await mkdir(root, { recursive: true });
  // The git home (Gitea's `[git] HOME_PATH`): its .gitconfig names the key for SIGNING_KEY = default.
  await mkdir(config.repository.signing.home, { recursive: true });
  const signing = createInstanceSigning(config.repository.signing, logger);
  const { git } = config;
  setGitProcessLimits({ timeoutMs: git.timeout.default, idleTimeoutMs: git.timeout.idle });
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    // Connects on its first call (a protected push checking commit signatures).
    const gpgKeys = createRpcClient(GpgKeyServiceService, { target: config.services.accounts.addr, service: 'accounts', caller: 'git-storage', logger });
    onStop(() => gpgKeys.close());
    await prepareOutbox(db);
    await bus.ensureStream(GIT_STREAM, [...GIT_SUBJECTS]);
    const relay = startOutboxRelay({ db, bus, logger });
    onStop(() => relay.stop());
    await reconcilePushed({ root, db, logger });
    const pushes = createPushPublisher({ root, db, logger });
    onStop(() => pushes.stop());
    const hooks = await startHookServer(logger);
    onStop(() => hooks.stop());
    // `[api] DEFAULT_MAX_BLOB_SIZE = 0` only hides content in Gitea's reads; it must not refuse every written file.
    const maxFileSize = config.api.defaultMaxBlobSize > 0 ? config.api.defaultMaxBlobSize : undefined;
    const transfers = new ConcurrencyLimit(git.maxConcurrentTransfers, git.maxQueuedTransfers, {
      message: 'the git server is busy, try again later',
      reason: 'git_storage_busy',
    });
    // Licence detection's templates, prepared in the background now rather than inside the first creation's deadline.
    licenseMatchers().catch((error: unknown) => logger.error({ err: error }, 'preparing the licence templates failed'));
    const pushGc = new PushGcExclusion();
    const gc = startGitGc({ root, logger, schedule: config.cron.gitGcRepos, gcArgs: git.gcArgs, gcTimeoutMs: git.timeout.gc, pushGc });
    onStop(() => gc.stop());
    return createGitStorageServer(
      {
        root,
        db,
        logger,
        gpgKeys,
        signing,
        maxFileSize,
        transfers,
        transferTimeoutMs: git.timeout.transfer,
        maxPushSize: config.repository.maxPushSize,
        pushes,
        pushGc,
        remotes: { policy: migrationPolicy(config.migrations), migrateTimeoutMs: git.timeout.migrate, mirrorTimeoutMs: git.timeout.mirror },
      },
      hooks,
      logger,
    );
  });
}
