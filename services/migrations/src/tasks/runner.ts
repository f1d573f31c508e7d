/**
 * The import task runner (Gitea's services/migrations MigrateRepository run by the task queue): claims tasks with a
 * lease it renews while they run, so a replica that dies (kill -9, a lost node) lets another take the task over once
 * the lease lapses, and the import resumes from its recorded step. Git data is fetched by git-storage
 * (RemoteService.FetchRemote, through the outbound guard): a fetch is idempotent, so a resumed import fetches again
 * and only what is still missing moves, and git-storage publishes cairn.git.pushed (origin "migration") only for
 * references that changed — a resumed import publishes no push twice. From a source with items (gitea, gogs, github,
 * gitlab; a restore's dump) the items follow
 * (topics, milestones, labels, releases, issues with comments and reactions, pull requests with their git heads
 * and reviews: @cairn/migration's migrateItems from the source's API into the owning services' idempotent
 * ImportService RPCs), each batch recorded on the task row, so a resumed import starts at its recorded item step. A
 * failed import deletes the repository, as Gitea does.
 */
import type { Logger } from '@cairn/log';
import { type Downloader, DumpFormatError, MIGRATION_STEPS, type MigrationItems, type MigrationStep, type PullRequest, TarError, createDownloader, hasItems, migrateItems } from '@cairn/migration';
import { migrationPolicy } from '@cairn/outbound';
import { type ClaimLoop, startClaimLoop } from '@cairn/service';
import { CairnError, Code, isCairnError } from '@cairn/rpc';
import { RETRY_BACKOFF_MS, classifyFailure, sourceFailure } from '../domain/failure';
import { createCairnUploader } from '../import/cairn-uploader';
import type { MigrationsContext, TaskRunner } from '../rpc/context';
import { newPullMirror, recordFirstSync } from '../mirrors/pull-mirror';
import { insertPullMirror } from '../store/pull-mirrors';
import { dropArchive } from './archive-sweep';
import { type RestoreSource, openRestoreSource } from './restore-source';
import { STATUS, claimTasks, endTask, recordStep, releaseForRetry, renewLease, type TaskRow } from '../store/tasks';

/** How long a claim holds a task without renewal; renewed every third of it while the task runs. */
export const LEASE_MS = 20_000;
const POLL_MS = 2_000;
/** Imports run at once per replica (each holds a git-storage fetch). */
const CONCURRENCY = 4;
/** How long the runner waits for repos to take in the pushed git data (the repos-git consumer) before it ends the task. */
const SETTLE_MS = 15_000;
/** The deadline of a FetchRemote call beyond its own git timeout. */
const FETCH_MARGIN_MS = 30_000;

export interface RunningTaskRunner extends TaskRunner {
  stop(): Promise<void>;
}

export function startTaskRunner(context: MigrationsContext, options: { leaseMs?: number } = {}): RunningTaskRunner {
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const { logger } = context;
  const loop: ClaimLoop<TaskRow> = startClaimLoop<TaskRow>({
    claim: (room) => claimTasks(context.db.pool, room, leaseMs),
    run: (task) => runTask(context, task, leaseMs),
    concurrency: CONCURRENCY,
    pollIntervalMs: POLL_MS,
    onClaimError: (error) => logger.error({ err: error }, 'claiming import tasks failed'),
    onRunError: (error, task) => logger.error({ err: error, task_id: task.id, repo_id: task.repo_id }, 'import task failed unexpectedly'),
  });
  return { wake: () => loop.wake(), stop: () => loop.stop() };
}

async function runTask(context: MigrationsContext, task: TaskRow, leaseMs: number): Promise<void> {
  const log = context.logger.child({ task_id: task.id, repo_id: task.repo_id, attempt: task.attempts });
  const started = Date.now();
  log.info({ clone_addr: task.clone_addr, resumed_from: task.step === '' ? undefined : task.step }, 'import started');
  // The lease is renewed while the task runs; once it is no longer ours (taken over), the task's writes are fenced.
  const renewal = setInterval(() => {
    renewLease(context.db.pool, task.id, task.attempts, leaseMs).catch((error: unknown) => log.warn({ err: error }, 'renewing the import lease failed'));
  }, leaseMs / 3);
  renewal.unref();
  let restore: RestoreSource | undefined;
  try {
    // A restore's dump (`cairn restore-repo`), fetched and extracted again by a resumed task.
    if (task.service === 'restore') restore = await openRestoreSource(context, task).catch(dumpFailure);
    // A task recorded at an item step has its git data already; it resumes there.
    const resumeFrom = itemStepOf(task);
    if (resumeFrom === undefined) await (restore === undefined ? importGit(context, task, log) : importBundle(context, task, log, restore));
    await importItems(context, task, log, resumeFrom, restore === undefined ? undefined : { downloader: restore.downloader, service: (await restore.downloader.repoInfo()).service });
    // A pull mirror's schedule starts in the transaction that ends its import (the import was its first sync).
    const mirror = task.options.mirror ? await newPullMirror(context, task) : undefined;
    const ended = await context.db.pool.transaction(async (tx) => {
      if (!(await endTask(tx, task.id, task.attempts, { status: STATUS.finished }))) return false;
      if (mirror !== undefined) await insertPullMirror(tx, mirror);
      return true;
    });
    if (ended) {
      await dropArchive(context, task.archive_key);
      log.info({ duration_ms: Date.now() - started }, 'import finished');
      if (mirror !== undefined) await recordFirstSync(context, task.repo_id, log);
    }
  } catch (error) {
    // Taken over by another claim (this one lapsed): the task is no longer this runner's to retry, fail or delete.
    if (isCairnError(error) && error.code === Code.ABORTED) {
      log.warn({ err: error, duration_ms: Date.now() - started }, 'import task taken over by another claim');
      return;
    }
    const failure = classifyFailure(error, task.attempts);
    if (failure.kind === 'retry') {
      log.warn({ err: error, duration_ms: Date.now() - started }, 'import step failed, to be tried again');
      await releaseForRetry(context.db.pool, task.id, task.attempts, RETRY_BACKOFF_MS, failure.message);
      return;
    }
    // Gitea deletes the repository of a failed import (routers/api/v1/repo/migrate.go). NOT_FOUND: already gone.
    await context.clients.repos
      .deleteRepository({ actor: doerOf(task), id: task.repo_id })
      .catch((deleteError: unknown) => {
        if (!(isCairnError(deleteError) && deleteError.code === Code.NOT_FOUND)) throw deleteError;
      });
    if (await endTask(context.db.pool, task.id, task.attempts, { status: STATUS.failed, message: failure.message, reason: failure.reason })) {
      await dropArchive(context, task.archive_key);
      log.warn({ err: error, reason: failure.reason, duration_ms: Date.now() - started }, 'import failed');
    }
  } finally {
    clearInterval(renewal);
    await restore?.close();
  }
}

/** A dump that cannot be read ends the restore (no retry helps). */
function dumpFailure(error: unknown): never {
  if (error instanceof DumpFormatError || error instanceof TarError) throw CairnError.precondition(error.message);
  throw error;
}

/**
 * A restore's "git" step: the dump's git/ as a bundle into git-storage (every branch, tag and pull request head), its
 * HEAD as the default branch (Gitea's restore clones git/ and takes its HEAD).
 */
async function importBundle(context: MigrationsContext, task: TaskRow, log: Logger, restore: RestoreSource): Promise<void> {
  const { clients } = context;
  if (!(await recordStep(context.db.pool, task.id, task.attempts, 'git', 0, 'restoring git data'))) {
    throw new CairnError(Code.ABORTED, 'the task was taken over');
  }
  log.info({ step: 'git' }, 'import step');
  const { repository } = await clients.repos.getRepository({ viewer: doerOf(task), id: task.repo_id, owner: '', name: '' });
  const repo = repository?.repository;
  if (repo === undefined) throw CairnError.notFound('the repository being restored into is gone');
  const requests = await restore.bundle({
    repository: { storage: '', repoId: task.repo_id },
    push: { pusherId: task.doer_id, repoOwnerId: repo.ownerId, repoPrivate: repo.private, pusherName: '' },
    origin: 'migration',
  });
  if (requests === undefined) return;
  const fetched = await clients.remotes.fetchBundle(requests, { deadlineMs: context.config.git.timeout.migrate + FETCH_MARGIN_MS });
  if (!(await recordStep(context.db.pool, task.id, task.attempts, 'git', fetched.updated.length, 'restoring git data'))) {
    throw new CairnError(Code.ABORTED, 'the task was taken over');
  }
  const head = await restore.headBranch();
  log.info({ step: 'git', refs: fetched.updated.length, head }, 'import step done');
  if (head !== '' && head !== repo.defaultBranch && fetched.updated.some((update) => update.ref === `refs/heads/${head}`)) {
    await clients.repos.updateRepository({ actor: doerOf(task), id: task.repo_id, defaultBranch: head, units: {} });
  }
  await settle(context, task, fetched.empty);
}

/**
 * Who the runner acts as on the task's own repository (read it, set its default branch, delete a failed import): the
 * import's doer with site-admin rights, since the task may run long after the doer's request (repos lets migrations
 * act for anyone), and the repository is the task's own.
 */
function doerOf(task: TaskRow): { userId: number; isAdmin: boolean; isRestricted: boolean } {
  return { userId: task.doer_id, isAdmin: true, isRestricted: false };
}

/** The "git" step: every branch and tag of the source, then the source's HEAD as the default branch. */
async function importGit(context: MigrationsContext, task: TaskRow, log: Logger): Promise<void> {
  const { clients, config } = context;
  if (!(await recordStep(context.db.pool, task.id, task.attempts, 'git', 0, 'migrating git data'))) {
    throw new CairnError(Code.ABORTED, 'the task was taken over');
  }
  log.info({ step: 'git' }, 'import step');
  const { repository } = await clients.repos.getRepository({ viewer: doerOf(task), id: task.repo_id, owner: '', name: '' });
  const repo = repository?.repository;
  if (repo === undefined) throw CairnError.notFound('the repository being imported into is gone');
  const timeoutMs = config.git.timeout.migrate;
  const fetched = await clients.remotes.fetchRemote(
    {
      repository: { storage: '', repoId: task.repo_id },
      url: task.clone_addr,
      auth: { username: task.auth_username, password: task.auth_password, token: task.auth_token },
      prune: false,
      timeoutSeconds: Math.ceil(timeoutMs / 1000),
      push: { pusherId: task.doer_id, repoOwnerId: repo.ownerId, repoPrivate: repo.private, pusherName: '' },
      origin: 'migration',
    },
    { deadlineMs: timeoutMs + FETCH_MARGIN_MS },
  );
  if (!(await recordStep(context.db.pool, task.id, task.attempts, 'git', fetched.updated.length, 'migrating git data'))) {
    throw new CairnError(Code.ABORTED, 'the task was taken over');
  }
  log.info({ step: 'git', refs: fetched.updated.length, remote_head: fetched.remoteHead }, 'import step done');
  // Gitea's MigrateRepositoryGitData: the source's HEAD becomes the default branch.
  if (fetched.remoteHead !== '' && fetched.remoteHead !== repo.defaultBranch) {
    await clients.repos.updateRepository({ actor: doerOf(task), id: task.repo_id, defaultBranch: fetched.remoteHead, units: {} });
  }
  await settle(context, task, fetched.empty);
}

const ITEM_STEPS: ReadonlySet<string> = new Set<MigrationStep>(MIGRATION_STEPS);

function itemStepOf(task: TaskRow): { step: MigrationStep; done: number } | undefined {
  return ITEM_STEPS.has(task.step) ? { step: task.step as MigrationStep, done: task.items_done } : undefined;
}

/**
 * The item steps (Gitea's migrateRepository after the git data): for a gitea or gogs source that is not a mirror,
 * topics always and the chosen items (comments come with issues, as Gitea's form sends them); each batch is recorded
 * on the task row (step, items_done, message), which is where a resumed import starts and what GetMigration shows.
 */
async function importItems(
  context: MigrationsContext,
  task: TaskRow,
  log: Logger,
  resumeFrom: { step: MigrationStep; done: number } | undefined,
  /** A restore's dump and the service it was dumped from (repo.yml's service_type, as Gitea's restore takes it). */
  dump?: { downloader: Downloader; service: string },
): Promise<void> {
  const { options } = task;
  if ((dump === undefined && !hasItems(task.service)) || options.mirror) return;
  const items: MigrationItems = {
    wiki: options.wiki,
    milestones: options.milestones,
    labels: options.labels,
    issues: options.issues,
    comments: options.comments ?? options.issues,
    pullRequests: options.pull_requests,
    releases: options.releases,
    // Gitea's API form has no separate choice: release assets come with releases (services/migrations/migrate.go); a
    // restore takes them when its units name them.
    releaseAssets: dump === undefined ? options.releases : options.release_assets === true,
  };
  const auth = { username: task.auth_username, password: task.auth_password, token: task.auth_token };
  const downloader =
    dump?.downloader ??
    (await createDownloader(task.service as Parameters<typeof createDownloader>[0], { cloneAddr: task.clone_addr, auth, policy: migrationPolicy(context.config.migrations) }).catch(
      (error: unknown) => {
        throw sourceFailure(error);
      },
    ));
  const pullSource = {
    // A restore's missing pull heads are not fetched from anywhere: the dump's git data is all there is.
    cloneAddr: dump === undefined ? task.clone_addr : '',
    auth,
    timeoutSeconds: Math.ceil(context.config.git.timeout.migrate / 1000),
    patch: (pull: PullRequest) => downloader.getPullPatch(pull),
  };
  // Created before the progress, which records the authors it has matched with each step.
  const uploader = createCairnUploader(
    context.clients,
    { repoId: task.repo_id, doerId: task.doer_id, service: dump?.service ?? task.service, pullSource },
    log,
    task.authors,
    { open: (asset) => downloader.openReleaseAsset(asset), maxBytes: context.config.attachment.maxSize * 1024 * 1024 },
  );
  let current: MigrationStep | undefined;
  const progress = {
    resumeFrom,
    async record(step: MigrationStep, done: number, message: string): Promise<void> {
      if (step !== current) {
        if (current !== undefined) log.info({ step: current }, 'import step done');
        log.info({ step }, 'import step');
        current = step;
      }
      if (!(await recordStep(context.db.pool, task.id, task.attempts, step, done, message, uploader.knownAuthors()))) {
        throw new CairnError(Code.ABORTED, 'the task was taken over');
      }
    },
  };
  if (resumeFrom !== undefined) log.info({ step: resumeFrom.step, done: resumeFrom.done }, 'import resumed at an item step');
  try {
    await migrateItems(downloader, uploader, items, progress);
  } catch (error) {
    if (error instanceof DumpFormatError) dumpFailure(error);
    throw sourceFailure(error);
  }
  if (current !== undefined) log.info({ step: current }, 'import step done');
}

/** Waits (bounded) until repos' row shows the fetched data, so the import's answer shows the repository as it is. */
async function settle(context: MigrationsContext, task: TaskRow, empty: boolean): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  while (Date.now() < until) {
    const { repository } = await context.clients.repos.getRepository({ viewer: doerOf(task), id: task.repo_id, owner: '', name: '' });
    if (repository?.repository?.empty === empty) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
