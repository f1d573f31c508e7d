/**
 * Imports (Gitea's routers/api/v1/repo/migrate.go Migrate): Migrate checks in Gitea's order, creates the repository
 * through repos, queues the durable task and waits for its outcome; GetMigration answers a repository's task (the
 * gateway has checked that the viewer may read the repository).
 */
import { checkRemoteHost, migrationPolicy, OutboundRefusedError } from '@cairn/outbound';
import type { MigrateRequest, MigrationTask } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { CairnError, Code, actorOf, isCairnError, isSignedIn, viewerFromActor, type AsyncServiceOf, type RpcContext } from '@cairn/rpc';
import { HOST_REFUSED, parseCloneAddress } from '../domain/clone-address';
import { failedImport } from '../domain/failure';
import { assertImportAllowed } from '../domain/settings';
import { STATUS, findTask, findTaskByRepo, insertTask, type TaskRow } from '../store/tasks';
import type { MigrationsContext } from './context';
import { repositoryCreation } from './repository-creation';

/** How often a waiting Migrate looks at its task. */
const WAIT_POLL_MS = 250;

/** Gitea's structs.GitServiceType names (convert.ToGitServiceType: anything else is plain git). */
const SERVICE_TYPES = ['git', 'github', 'gitea', 'gitlab', 'gogs', 'onedev', 'gitbucket', 'codebase', 'codecommit'];

export function createMigrationRpcs(context: MigrationsContext): Pick<AsyncServiceOf<typeof MigrationServiceService>, 'migrate' | 'getMigration'> {
  return {
    migrate: (request, ctx) => migrate(context, request, ctx),
    async getMigration(request) {
      const task = await findTaskByRepo(context.db.pool, request.repoId);
      if (task === undefined) throw CairnError.notFound('the repository has no migration task');
      return { task: taskMessage(task) };
    },
  };
}

async function migrate(context: MigrationsContext, request: MigrateRequest, ctx: RpcContext): Promise<{ repoId: number }> {
  const { clients, config } = context;
  const viewer = viewerFromActor(request.actor);
  if (!isSignedIn(viewer)) throw CairnError.denied('only signed-in users may migrate repositories');
  const actor = actorOf(viewer);
  // 1. The owner (by name, by id, else the actor): NOT_FOUND, which the gateway answers 422 as Gitea.
  let owner = request.repoOwner.trim();
  if (owner === '' && request.uid !== 0) {
    const { user } = await clients.users.getUser({ id: request.uid, viewer: actor });
    owner = user?.login ?? '';
  }
  // 2. The actor may create there.
  await clients.repos.createRepository(creation(request, owner, { validateOnly: true })).catch((error: unknown) => {
    // Gitea's wording for an organization the actor may not create in.
    if (isCairnError(error) && error.reason === 'org_create_denied') throw CairnError.denied('Given user is not owner of organization.', { reason: 'org_create_denied' });
    throw error;
  });
  // 3. The clone address and its host.
  const address = parseCloneAddress(request.cloneAddr, request.authUsername, request.authPassword);
  await checkRemoteHost(migrationPolicy(config.migrations), address.host).catch((error: unknown) => {
    if (error instanceof OutboundRefusedError) throw CairnError.invalid(HOST_REFUSED, { reason: 'host_refused' });
    throw error;
  });
  // 4, 5. New pull mirrors, migrations.
  assertImportAllowed(config, request.mirror);
  // 6. The repository (ALREADY_EXISTS, name rules, limits, the mirror interval).
  const { repository } = await clients.repos.createRepository(creation(request, owner, { originalUrl: address.url }));
  const repo = repository?.repository;
  if (repo === undefined) throw CairnError.internal('repos answered no repository');
  const service = request.service.toLowerCase();
  let taskId: number;
  try {
    taskId = await insertTask(context.db.pool, {
      repoId: repo.id,
      ownerId: repo.ownerId,
      doerId: viewer.id,
      cloneAddr: address.url,
      service: SERVICE_TYPES.includes(service) ? service : 'git',
      // Gitea's Migrate: a mirror imports git data only.
      options: {
        mirror: request.mirror,
        private: repo.private,
        description: request.description,
        wiki: request.wiki,
        milestones: request.milestones && !request.mirror,
        labels: request.labels && !request.mirror,
        issues: request.issues && !request.mirror,
        pull_requests: request.pullRequests && !request.mirror,
        releases: request.releases && !request.mirror,
        lfs: request.lfs,
      },
      auth: { username: address.username, password: address.password, token: request.authToken },
    });
  } catch (error) {
    // No task, no import: the repository goes (its creation cannot share this transaction).
    await clients.repos.deleteRepository({ actor: { userId: viewer.id, isAdmin: true, isRestricted: false }, id: repo.id }).catch(() => undefined);
    throw error;
  }
  ctx.logger.info({ task_id: taskId, repo_id: repo.id, clone_addr: address.url }, 'import queued');
  context.runner?.wake();
  const ended = await waitForEnd(context, taskId, ctx.signal);
  if (ended.status === STATUS.failed) throw failedImport(ended.message, ended.failure_reason);
  return { repoId: repo.id };
}

function creation(request: MigrateRequest, owner: string, extra: { validateOnly?: boolean; originalUrl?: string }) {
  return repositoryCreation({
    actor: request.actor,
    owner,
    name: request.repoName.trim(),
    description: request.description,
    private: request.private,
    mirror: request.mirror,
    mirrorInterval: request.mirrorInterval,
    ...extra,
  });
}

/** The task once ended; if the caller goes first (its deadline), the task goes on and the call ends. */
async function waitForEnd(context: MigrationsContext, taskId: number, signal: AbortSignal): Promise<TaskRow> {
  for (;;) {
    const task = await findTask(context.db.pool, taskId);
    if (task === undefined) throw CairnError.internal('the import task vanished');
    if (task.status === STATUS.finished || task.status === STATUS.failed) return task;
    if (signal.aborted) throw new CairnError(Code.DEADLINE_EXCEEDED, 'the import goes on; its progress is at the repository\'s migration status');
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** A task as MigrationService answers it (credentials never included). */
export function taskMessage(task: TaskRow): MigrationTask {
  return {
    id: task.id,
    repoId: task.repo_id,
    doerId: task.doer_id,
    status: task.status,
    message: task.message,
    step: task.step,
    itemsDone: task.items_done,
    created: task.created_at,
    started: task.started_at ?? undefined,
    ended: task.ended_at ?? undefined,
    cloneAddr: task.clone_addr,
    service: task.service,
  };
}
