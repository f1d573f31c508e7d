/**
 * RestoreRepository (Gitea's routers/private/restore_repo.go and services/migrations/dump.go RestoreRepository, run
 * by the instance as `cairn restore-repo` asks, as the first site admin the CLI asserts): the CLI streams a tar of the dump directory; it is checked while it
 * arrives (@cairn/migration's TarReader: relative paths, files and directories only, size limits) and stored in the
 * object store, the repository is created as that admin and a durable "restore" task
 * is queued — a failure on the way keeps nothing (no repository, no object). The call then follows the task and
 * answers its progress until it ends; the task goes on if the CLI goes away.
 */
import { TarError, TarReader } from '@cairn/migration';
import type { MigrationServiceService, RestoreRepositoryRequest, RestoreRepositoryResponse } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { type AsyncServiceOf, CairnError, isCairnError, type RpcContext } from '@cairn/rpc';
import { uuidv7 } from '@cairn/bus';
import { parse } from 'yaml';
import { REPO_YML_MAX_BYTES, RESTORE_ARCHIVE_LIMITS, restoreOptions } from '../domain/restore';
import { STATUS, findTask, insertTask } from '../store/tasks';
import { touchArchive } from '../store/restore-archives';
import { dropArchive } from '../tasks/archive-sweep';
import type { MigrationsContext } from './context';
import { repositoryCreation } from './repository-creation';
import { taskMessage } from './migration-service';

const POLL_MS = 250;
/** How often an arriving archive's restore_archives row is touched, so the stray sweep (an hour) never takes it. */
const ARCHIVE_TOUCH_MS = 60_000;

interface StoredArchive {
  key: string;
  repo: { description: string; isPrivate: boolean; originalUrl: string };
}

/** Stores the archive while checking it; repo.yml (at its top) must be there. Nothing stays when it is refused. */
async function storeArchive(context: MigrationsContext, header: RestoreRepositoryRequest, rest: AsyncIterator<RestoreRepositoryRequest>): Promise<StoredArchive> {
  const objects = context.objects;
  if (objects === undefined) throw CairnError.unavailable('the object store is not configured');
  const reader = new TarReader(RESTORE_ARCHIVE_LIMITS);
  let current = '';
  const repoYml: Buffer[] = [];
  let repoYmlBytes = 0;
  let sawRepoYml = false;
  const key = `restores/${uuidv7()}`;
  let touched = Date.now();
  async function* checked(): AsyncIterable<Uint8Array> {
    let request: RestoreRepositoryRequest | undefined = header;
    while (request !== undefined) {
      if (Date.now() - touched >= ARCHIVE_TOUCH_MS) {
        touched = Date.now();
        await touchArchive(context.db.pool, key);
      }
      for (const event of reader.push(Buffer.from(request.data))) {
        if (event.kind === 'entry') {
          current = event.entry.type === 'file' ? event.entry.path : '';
          if (current === 'repo.yml') sawRepoYml = true;
        } else if (current === 'repo.yml') {
          repoYmlBytes += event.chunk.length;
          if (repoYmlBytes > REPO_YML_MAX_BYTES) throw new TarError('repo.yml is too large');
          repoYml.push(Buffer.from(event.chunk));
        }
      }
      yield request.data;
      const next = await rest.next();
      request = next.done === true ? undefined : next.value;
    }
    reader.end();
    if (!sawRepoYml) throw new TarError('the dump has no repo.yml at its top');
  }
  // Recorded before the first byte, so an archive whose task never comes (this process dies) is swept.
  await touchArchive(context.db.pool, key);
  try {
    await objects.put(key, checked(), { maxBytes: RESTORE_ARCHIVE_LIMITS.maxBytes });
    await touchArchive(context.db.pool, key);
  } catch (error) {
    await dropArchive(context, key);
    if (error instanceof TarError) throw CairnError.invalid(`the dump cannot be restored: ${error.message}`, { reason: 'bad_archive' });
    throw error;
  }
  // Gitea's restorer reads repo.yml as map[string]string: description, is_private, original_url.
  let parsed: unknown;
  try {
    parsed = parse(Buffer.concat(repoYml).toString('utf8'));
  } catch (error) {
    await dropArchive(context, key);
    throw CairnError.invalid(`repo.yml: not valid YAML: ${error instanceof Error ? error.message : String(error)}`, { reason: 'bad_archive' });
  }
  const record = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    key,
    repo: {
      description: text(record.description),
      isPrivate: record.is_private === true || record.is_private === 'true',
      originalUrl: text(record.original_url),
    },
  };
}

async function* restore(context: MigrationsContext, requests: AsyncIterable<RestoreRepositoryRequest>, ctx: RpcContext): AsyncIterable<RestoreRepositoryResponse> {
  const { clients } = context;
  const iterator = requests[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done === true) throw CairnError.invalid('no request was sent');
  const header = first.value;
  const owner = header.ownerName.trim();
  const name = header.repoName.trim();
  if (owner === '' || name === '') throw CairnError.invalid('the owner name and the repository name are required');
  restoreOptions(header.units, { isPrivate: false, description: '' });
  // The CLI asserts the first site admin (Gitea's GetAdminUser), which the calls below pass on.
  const actor = header.actor;
  if (actor === undefined || actor.userId <= 0 || !actor.isAdmin) throw CairnError.denied('a restore runs as a site administrator');
  const doerId = actor.userId;
  const creation = repositoryCreation({ actor, owner, name, description: '', private: false });
  // The owner first (NOT_FOUND before any byte is stored), as Gitea's uploader looks the owner up first.
  await clients.repos.createRepository({ ...creation, validateOnly: true });
  const archive = await storeArchive(context, header, iterator);
  let repoId: number;
  let ownerId: number;
  try {
    const { repository } = await clients.repos.createRepository({
      ...creation,
      description: archive.repo.description,
      private: archive.repo.isPrivate,
      originalUrl: archive.repo.originalUrl,
    });
    const repo = repository?.repository;
    if (repo === undefined) throw CairnError.internal('repos answered no repository');
    repoId = repo.id;
    ownerId = repo.ownerId;
  } catch (error) {
    await dropArchive(context, archive.key);
    throw error;
  }
  let taskId: number;
  try {
    taskId = await insertTask(context.db.pool, {
      repoId,
      ownerId,
      doerId,
      cloneAddr: archive.repo.originalUrl,
      service: 'restore',
      options: restoreOptions(header.units, archive.repo),
      auth: { username: '', password: '', token: '' },
      archiveKey: archive.key,
    });
  } catch (error) {
    await clients.repos.deleteRepository({ actor, id: repoId }).catch(() => undefined);
    await dropArchive(context, archive.key);
    throw error;
  }
  ctx.logger.info({ task_id: taskId, repo_id: repoId, archive: archive.key }, 'restore queued');
  context.runner?.wake();
  let last = '';
  for (;;) {
    const task = await findTask(context.db.pool, taskId);
    if (task === undefined) throw CairnError.internal('the restore task vanished');
    const seen = `${task.status}/${task.step}/${task.items_done}/${task.message}`;
    if (seen !== last) {
      last = seen;
      yield { repoId, task: taskMessage(task) };
    }
    if (task.status === STATUS.finished || task.status === STATUS.failed || ctx.signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export function createRestoreRpcs(context: MigrationsContext): Pick<AsyncServiceOf<typeof MigrationServiceService>, 'restoreRepository'> {
  return {
    restoreRepository: (requests, ctx) => restoreWithErrors(context, requests, ctx),
  };
}

/** Errors other than the contract's are the caller's problem to see plainly, not a bare INTERNAL. */
async function* restoreWithErrors(context: MigrationsContext, requests: AsyncIterable<RestoreRepositoryRequest>, ctx: RpcContext): AsyncIterable<RestoreRepositoryResponse> {
  try {
    yield* restore(context, requests, ctx);
  } catch (error) {
    if (isCairnError(error)) throw error;
    throw CairnError.internal('the restore failed', { cause: error });
  }
}
