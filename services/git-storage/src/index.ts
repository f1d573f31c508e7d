/**
 * @cairn/git-storage: the bare repositories on disk and every git operation on them, over gRPC; cairn.git.*
 * events through the transactional outbox. `start` runs the service inside any process (the supervisor, tests);
 * `main.ts` runs it alone. Its schema holds only the outbox (no tables of its own: the data is the repositories).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { type OutboxRelay, prepareOutbox, startOutboxRelay } from '@cairn/bus';
import { openDatabase } from '@cairn/db';
import { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { createRpcClient, type RpcClient } from '@cairn/rpc';
import type { RunningService, ServiceStartOptions } from '@cairn/service';
import { GIT_STREAM, GIT_SUBJECTS } from './events/subjects';
import { type HookServer, startHookServer } from './push/hook-server';
import { createGitStorageServer } from './server';

export { GIT_STREAM, GIT_SUBJECTS, GitSubject } from './events/subjects';
export { createGitStorageServer } from './server';
export type { GitStorageContext } from './rpc/context';
export { repositoryPath } from './storage/layout';

export const SERVICE_NAME = 'git-storage';
export const DATABASE_SCHEMA = 'git_storage';

/** `listen` defaults to `[services.git-storage] LISTEN`. */
export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts git-storage in this process: repositories under `<CAIRN_WORK_DIR>/repositories`. Graceful stop
 * (SIGTERM): health turns NOT_SERVING and the server takes no new calls, calls in flight (clones, pushes) finish
 * (up to 5 s), the hook socket closes, the outbox relay flushes the pushes' events (up to 5 s), then the accounts
 * client and the pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger, bus } = options;
  const root = path.join(config.workDir, 'repositories');
  await mkdir(root, { recursive: true });
  const db = await openDatabase({
    url: config.database.url,
    schema: DATABASE_SCHEMA,
    logger,
    maxConnections: config.database.maxOpenConns,
  });
  let relay: OutboxRelay | undefined;
  let hooks: HookServer | undefined;
  let gpgKeys: RpcClient<typeof GpgKeyServiceService> | undefined;
  try {
    await prepareOutbox(db);
    await bus.ensureStream(GIT_STREAM, [...GIT_SUBJECTS]);
    relay = startOutboxRelay({ db, bus, logger });
    hooks = await startHookServer(logger);
    gpgKeys = createRpcClient(GpgKeyServiceService, { target: config.services.accounts.addr, service: 'accounts', logger });
    // `[api] DEFAULT_MAX_BLOB_SIZE = 0` only hides content in Gitea's reads; it must not refuse every written file.
    const server = createGitStorageServer({ root, db, logger, gpgKeys, maxFileSize: config.api.defaultMaxBlobSize > 0 ? config.api.defaultMaxBlobSize : undefined }, hooks, logger);
    const port = await server.start(options.listen ?? config.services['git-storage'].listen);
    server.setServing(true);
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await server.stop();
        await hooks?.stop();
        await relay?.stop();
        gpgKeys?.close();
        await db.close();
      })());
    return { name: SERVICE_NAME, port, stop };
  } catch (error) {
    gpgKeys?.close();
    await hooks?.stop();
    await relay?.stop();
    await db.close();
    throw error;
  }
}
