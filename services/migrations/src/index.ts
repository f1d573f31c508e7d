/**
 * @cairn/migrations: imports of repositories from other hosting services as durable, resumable tasks (Gitea's
 * services/migrations), pull mirrors kept in sync on a schedule and push mirrors (Gitea's services/mirror). Every
 * connection to a remote is made by git-storage (RemoteService) through the one outbound guard with the
 * `[migrations]` policy. `start` runs the service inside any process (the supervisor, tests); `main.ts` alone.
 */
import path from 'node:path';
import { guardBus, prepareOutbox, type Subscription } from '@cairn/bus';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { MergeServiceService, RemoteServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { ImportServiceService as IssueImportService } from '@cairn/proto/cairn/issues/v1/import_service';
import { ImportServiceService as ReleaseImportService } from '@cairn/proto/cairn/repos/v1/import_service';
import { RepoServiceService, TopicServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { ImportServiceService as ReactionImportService } from '@cairn/proto/cairn/social/v1/import_service';
import { type RpcClientHandle, createRpcClient } from '@cairn/rpc';
import { openObjectStore } from '@cairn/storage';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { BUS_USAGE } from './events/bus-usage';
import { startMirrorConsumers } from './events/mirror-consumers';
import { startMirrorScheduler } from './mirrors/scheduler';
import type { MigrationsClients, MigrationsContext } from './rpc/context';
import { createMigrationsServer } from './server';
import { startArchiveSweep } from './tasks/archive-sweep';
import { startTaskRunner } from './tasks/runner';

export { BUS_USAGE } from './events/bus-usage';
export type { MigrationsContext } from './rpc/context';
export const SERVICE_NAME = 'migrations';
export const DATABASE_SCHEMA = 'migrations';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts migrations in this process. It calls accounts, repos, git-storage, issues and social; the supervisor starts
 * those first.
 * Graceful stop (SIGTERM): health turns NOT_SERVING, calls in flight finish, the task runner stops claiming and
 * waits for the steps in flight (a task it could not finish is taken over by any replica once its lease lapses),
 * then the clients and the pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    const handles: RpcClientHandle[] = [];
    const client = <D extends Parameters<typeof createRpcClient>[0]>(definition: D, service: 'accounts' | 'repos' | 'git-storage' | 'issues' | 'social') => {
      const created = createRpcClient(definition, { target: config.services[service].addr, service, caller: 'migrations', logger, deadlineMs: config.rpc.deadlineMs });
      handles.push(created);
      return created;
    };
    const clients: MigrationsClients = {
      users: client(UserServiceService, 'accounts'),
      repos: client(RepoServiceService, 'repos'),
      remotes: client(RemoteServiceService, 'git-storage'),
      pullHeads: client(MergeServiceService, 'git-storage'),
      topics: client(TopicServiceService, 'repos'),
      releaseImports: client(ReleaseImportService, 'repos'),
      issueImports: client(IssueImportService, 'issues'),
      reactionImports: client(ReactionImportService, 'social'),
    };
    onStop(() => {
      for (const handle of handles) handle.close();
    });
    const objects = openObjectStore(config.attachment.storage);
    onStop(() => objects.close());
    const context: MigrationsContext = { db, logger, config, clients, objects };
    const runner = startTaskRunner(context);
    context.runner = runner;
    onStop(() => runner.stop());
    const sweep = startArchiveSweep(context);
    onStop(() => sweep.stop());
    // Mirrors: the scheduler, then the consumers that wake it (stopped first: the consumers, then the scheduler).
    await prepareOutbox(db);
    const mirrors = startMirrorScheduler(context);
    context.mirrors = mirrors;
    onStop(() => mirrors.stop());
    const consumers: Subscription[] = await startMirrorConsumers(context, bus);
    onStop(async () => {
      for (const consumer of consumers) await consumer.stop();
    });
    return createMigrationsServer(context, logger);
  });
}
