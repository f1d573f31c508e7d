/**
 * `cairn restore-repo` (Gitea's cmd/restore_repo.go, which asks the running server's private API to restore): reads a
 * dump in Gitea's layout from `--repo_dir` (the directory holding repo.yml), checks it (`--validation`: Gitea's
 * schemas), and streams it as a tar to the running instance's migrations service (RestoreRepository, as the CLI's own
 * identity), which creates the repository as the first site admin and restores it as a durable task. The command
 * follows the task: a line per progress change, then the result (exit 0), or the failure (exit 1).
 */
import path from 'node:path';
import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { DumpDownloader, DumpFormatError, TarError, tarDirectory } from '@cairn/migration';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { MigrationServiceService, type RestoreRepositoryRequest, TaskStatus } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { createRpcClient, installKeyring, loadKeyring } from '@cairn/rpc';
import { readLiveRuntimeFile } from '@cairn/supervisor';
import type { CommandSpec, FlagValues } from '../args';
import { CommandFailedError } from '../errors';
import { UNITS, parseUnitNames } from './units';


export const restoreRepoCommand: CommandSpec = {
  path: ['restore-repo'],
  summary: "restore a repository from a dump in Gitea's layout into the running instance",
  flags: [
    { name: 'repo_dir', short: 'r', type: 'string', description: 'the dump directory holding repo.yml (default ./data)' },
    { name: 'owner_name', type: 'string', required: true, description: 'the owner (an existing user or organization) of the restored repository' },
    { name: 'repo_name', type: 'string', required: true, description: 'the name of the restored repository (must not exist)' },
    { name: 'units', type: 'string', description: `what to restore besides git data, comma separated: ${UNITS.join(', ')} (default all)` },
    { name: 'validation', type: 'boolean', description: "check the dump's YAML against Gitea's schemas before restoring" },
  ],
};

const text = (values: FlagValues, name: string): string => (typeof values[name] === 'string' ? values[name] : '');

/** The task's progress as one line. */
function progressLine(step: string, itemsDone: number, message: string): string {
  return message !== '' ? `${step}: ${message}` : `${step}${itemsDone > 0 ? ` (${itemsDone})` : ''}`;
}

/**
 * Gitea's GetAdminUser: the site admin with the lowest id, listed as the instance's site administration lists users
 * (the CLI is the operator's edge; it reads as a site admin, as Cairn's internal readers do with user 1).
 */
async function firstAdmin(addr: string, config: CairnConfig, logger: Logger): Promise<{ userId: number; isAdmin: boolean; isRestricted: boolean }> {
  const accounts = createRpcClient(UserServiceService, { target: addr, service: 'accounts', caller: 'cli', logger, deadlineMs: config.rpc.deadlineMs });
  try {
    const { users } = await accounts.listUsers({
      viewer: { userId: 1, isAdmin: true, isRestricted: false },
      keyword: '',
      visibility: '',
      isAdmin: true,
      sourceId: 0,
      loginName: '',
      sort: 'id',
      order: 'asc',
      page: { page: 1, limit: 1 },
    });
    const admin = users[0];
    if (admin === undefined) throw new CommandFailedError('Failed to restore repository: the instance has no site administrator to restore as');
    return { userId: admin.id, isAdmin: true, isRestricted: false };
  } finally {
    accounts.close();
  }
}

export async function runRestoreRepo(config: CairnConfig, values: FlagValues, cwd: string, logger: Logger, progress: (line: string) => void): Promise<string> {
  const dir = path.resolve(cwd, text(values, 'repo_dir') || './data');
  const owner = text(values, 'owner_name');
  const name = text(values, 'repo_name');
  // An unknown unit is the command line's mistake, found before the dump is read or anything is sent.
  const units = parseUnitNames(text(values, 'units'), restoreRepoCommand);
  try {
    // Reads repo.yml and, when asked, checks the YAML before anything is sent.
    await DumpDownloader.open(dir, { validation: values.validation === true });
  } catch (error) {
    if (error instanceof DumpFormatError) throw new CommandFailedError(`Failed to restore repository: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CommandFailedError(`Failed to restore repository: ${dir} does not exist`);
    throw error;
  }
  const runtime = readLiveRuntimeFile(config.workDir);
  const addr = runtime?.state === 'ready' ? runtime.services.migrations?.addr : undefined;
  const accountsAddr = runtime?.state === 'ready' ? runtime.services.accounts?.addr : undefined;
  if (addr === undefined || accountsAddr === undefined) throw new CommandFailedError(`restore-repo runs through the running instance: start cairn on the work dir ${config.workDir} first`);

  installKeyring(loadKeyring(config.rpc.keysDir));
  const actor = await firstAdmin(accountsAddr, config, logger);
  const client = createRpcClient(MigrationServiceService, { target: addr, service: 'migrations', caller: 'cli', logger, deadlineMs: config.rpc.deadlineMs });
  async function* requests(): AsyncIterable<RestoreRepositoryRequest> {
    yield { ownerName: owner, repoName: name, units, data: Buffer.alloc(0), actor };
    for await (const chunk of tarDirectory(dir)) yield { ownerName: '', repoName: '', units: [], data: chunk, actor: undefined };
  }
  try {
    let ended: { status: TaskStatus; message: string } | undefined;
    for await (const response of client.restoreRepository(requests(), { actor })) {
      const task = response.task;
      if (task === undefined) continue;
      if (task.status === TaskStatus.TASK_STATUS_FINISHED || task.status === TaskStatus.TASK_STATUS_FAILED) ended = task;
      else if (task.step !== '') progress(progressLine(task.step, task.itemsDone, task.message));
    }
    if (ended === undefined) throw new CommandFailedError('the instance stopped answering before the restore ended; its task goes on');
    if (ended.status === TaskStatus.TASK_STATUS_FAILED) throw new CommandFailedError(`Failed to restore repository: ${ended.message}`);
    return `restored ${owner}/${name} from ${dir}`;
  } catch (error) {
    if (error instanceof TarError) throw new CommandFailedError(`Failed to restore repository: ${error.message}`);
    throw error;
  } finally {
    client.close();
  }
}
