/**
 * @cairn/hooks: webhooks — definitions of every scope, the payloads built once per event from the event stream,
 * their delivery (retried, one circuit breaker per target host, every request through @cairn/outbound's guard) and
 * the delivery history — and the public event stream built from the same payloads (events/public-stream.ts).
 * `start` runs the service inside any process (the supervisor, tests); `main.ts` alone.
 */
import path from 'node:path';
import { prepareOutbox, startOutboxRelay, type Subscription, guardBus } from '@cairn/bus';
import { EVENTS_STREAMS } from '@cairn/events';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { CommitServiceService, MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { AttachmentServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { StarServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { type RpcClientHandle, createRpcClient } from '@cairn/rpc';
import { startGrpcService, type RunningService, type ServiceStartOptions } from '@cairn/service';
import { startDeliverer } from './delivery/deliverer';
import { BUS_USAGE } from './events/bus-usage';
import { startEventConsumers } from './events/consumers';
import type { HooksClients, HooksContext } from './rpc/context';
import { createHooksServer } from './server';

export { BUS_USAGE } from './events/bus-usage';
export type { HooksContext } from './rpc/context';
export const SERVICE_NAME = 'hooks';
export const DATABASE_SCHEMA = 'hooks';
/** From this file's directory: `src/../src/db/migrations` or `dist/../src/db/migrations`. */
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'src', 'db', 'migrations');

export type StartOptions = ServiceStartOptions;
export type { RunningService };

/**
 * Starts hooks in this process. Payloads are built from accounts (users), repos (repositories), issues, social
 * (counters) and git-storage (commits); the supervisor starts those first. Graceful stop (SIGTERM): health turns
 * NOT_SERVING, calls in flight finish, the consumers stop (the event in hand is finished and acknowledged), the
 * deliverer finishes the attempts in flight (a task it could not finish is taken up again by any replica once its
 * claim lapses), the outbox relay flushes the public events written meanwhile (up to 5 s), then the clients and the
 * pool close.
 */
export async function start(options: StartOptions): Promise<RunningService> {
  const { config, logger } = options;
  // Only what BUS_USAGE declares, which is also all the service's NATS user may do (deploy/k8s/nats-values.yaml).
  const bus = guardBus(options.bus, BUS_USAGE);
  return startGrpcService(options, { name: SERVICE_NAME, schema: DATABASE_SCHEMA, migrationsDir: MIGRATIONS_DIR }, async ({ db, onStop }) => {
    const handles: RpcClientHandle[] = [];
    const client = <D extends Parameters<typeof createRpcClient>[0]>(definition: D, service: 'accounts' | 'repos' | 'git-storage' | 'issues' | 'social') => {
      const created = createRpcClient(definition, { target: config.services[service].addr, service, caller: 'hooks', logger, deadlineMs: config.rpc.deadlineMs });
      handles.push(created);
      return created;
    };
    const clients: HooksClients = {
      users: client(UserServiceService, 'accounts'),
      teams: client(TeamServiceService, 'accounts'),
      repos: client(RepoServiceService, 'repos'),
      attachments: client(AttachmentServiceService, 'repos'),
      stars: client(StarServiceService, 'social'),
      issues: client(IssueServiceService, 'issues'),
      pulls: client(PullServiceService, 'issues'),
      reviews: client(ReviewServiceService, 'issues'),
      commits: client(CommitServiceService, 'git-storage'),
      refs: client(RefServiceService, 'git-storage'),
      gitMerge: client(MergeServiceService, 'git-storage'),
    };
    onStop(() => {
      for (const handle of handles) handle.close();
    });
    // The consumers' processed-event ids live beside the outbox, which holds the public stream's messages.
    await prepareOutbox(db);
    for (const stream of EVENTS_STREAMS) await bus.ensureStream(stream.name, [...stream.subjects], stream.kind);
    const relay = startOutboxRelay({ db, bus, logger });
    // Stopped after the consumers and the deliverer (onStop runs in reverse): it flushes what they wrote.
    onStop(() => relay.stop());
    const context: HooksContext = { db, logger, config, clients };
    const deliverer = startDeliverer(context);
    context.deliverer = deliverer;
    onStop(() => deliverer.stop());
    const consumers: Subscription[] = [];
    // Stopped before the deliverer (onStop runs in reverse): no new tasks while it finishes.
    onStop(async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))));
    consumers.push(...(await startEventConsumers(context, bus, deliverer)));
    return createHooksServer(context, logger);
  });
}
