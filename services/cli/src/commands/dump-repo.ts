/**
 * `cairn dump-repo` (Gitea's cmd/dump_repo.go and services/migrations/dump.go DumpRepository): downloads a repository
 * from a source and writes Gitea's dump layout under `<repo_dir>/<owner_name>/<repo_name>/` — repo.yml, the git
 * data as a bare mirror in `git/`, and for gitea/gogs sources the chosen items (@cairn/migration's DumpUploader fed
 * by its driver). Every connection — the API requests and git's — goes through @cairn/outbound's guard with the
 * instance's `[migrations]` policy, so a refused host is never contacted.
 */
import { execFile } from 'node:child_process';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CairnConfig } from '@cairn/config';
import {
  type Downloader,
  DumpUploader,
  type GitServiceName,
  type MigrationItems,
  type MigrationRepository,
  ITEM_SERVICES,
  MigrationSourceError,
  createDownloader,
  migrateItems,
  parseCloneAddr,
} from '@cairn/migration';
import { OutboundRefusedError, type OutboundPolicy, checkRemoteHost, guardedGitEnvironment, migrationPolicy, startOutboundProxy } from '@cairn/outbound';
import { UsageError, type CommandSpec, type FlagValues } from '../args';
import { CommandFailedError } from '../errors';
import { UNITS, type UnitName, parseUnitNames } from './units';

/** The sources this version reads: plain git and every source with a downloader. */
const SERVICES: readonly GitServiceName[] = ['git', ...ITEM_SERVICES];

export const dumpRepoCommand: CommandSpec = {
  path: ['dump-repo'],
  summary: "dump a repository from a source (git, gitea, gogs) to a local directory in Gitea's dump format",
  flags: [
    { name: 'git_service', type: 'string', description: `the source's kind: ${SERVICES.join(', ')} (default by clone_addr: github for https://github.com/, gitlab for https://gitlab.com/, gitea for https://gitea.com/, otherwise git)` },
    { name: 'repo_dir', type: 'string', description: 'the directory to write to; must not exist or be empty (default ./data)' },
    { name: 'clone_addr', type: 'string', required: true, description: 'the source repository, e.g. https://host/owner/repo.git' },
    { name: 'auth_username', type: 'string', description: 'the user name at the source' },
    { name: 'auth_password', type: 'string', description: 'the password at the source' },
    { name: 'auth_token', type: 'string', description: 'an access token at the source (used instead of user name and password)' },
    { name: 'owner_name', type: 'string', required: true, description: 'the owner name the dump is written under' },
    { name: 'repo_name', type: 'string', required: true, description: 'the repository name the dump is written under' },
    { name: 'units', type: 'string', description: `what to dump besides git data, comma separated: ${UNITS.join(', ')} (default all)` },
  ],
};

/** Gitea's message when the migrations host policy refuses a source (routers/api/v1/repo/migrate.go). */
const HOST_REFUSED = 'You can not import from disallowed hosts.';
/** Gitea's dumper gives a clone two hours (dump.go migrateTimeout). */
const GIT_TIMEOUT_MS = 2 * 60 * 60_000;
const CONNECT_TIMEOUT_MS = 30_000;
/** The remote's name while git fetches; the dump's config names the source `origin`, without credentials. */
const REMOTE_NAME = 'cairn-remote';

const text = (values: FlagValues, name: string): string => (typeof values[name] === 'string' ? values[name] : '');

/** `--units` as Gitea's updateOptionsUnits: empty means all (release assets included). */
function parseUnits(list: string): MigrationItems {
  const units = parseUnitNames(list, dumpRepoCommand);
  const all = units.length === 0;
  const has = (unit: UnitName) => all || units.includes(unit);
  return {
    wiki: false,
    issues: has('issues'),
    labels: has('labels'),
    releases: has('releases'),
    releaseAssets: has('release_assets'),
    milestones: has('milestones'),
    pullRequests: has('pull_requests'),
    comments: has('comments'),
  };
}

/**
 * The source's kind as Gitea's cmd/dump_repo.go recognizes it from clone_addr's prefix (https://github.com/,
 * https://gitlab.com/, https://gitea.com/, case-insensitive) when --git_service is not given; otherwise plain git
 * (Gitea refuses "git_service missed or clone_addr cannot be recognized"). A given --git_service is kept (Gitea
 * overrides it for those hosts), so `--git_service git` still dumps only git data from them.
 */
const HOST_SERVICES: ReadonlyArray<readonly [string, GitServiceName]> = [
  ['https://github.com/', 'github'],
  ['https://gitlab.com/', 'gitlab'],
  ['https://gitea.com/', 'gitea'],
];

export function serviceOf(gitService: string, cloneAddr: string): GitServiceName {
  const given = gitService.toLowerCase();
  if (given === '') return HOST_SERVICES.find(([prefix]) => cloneAddr.toLowerCase().startsWith(prefix))?.[1] ?? 'git';
  if (!(SERVICES as readonly string[]).includes(given)) {
    throw new UsageError(`--git_service ${given} is not available in this version of Cairn: use ${SERVICES.join(', ')}`, dumpRepoCommand);
  }
  return given as GitServiceName;
}

async function ensureEmptyDir(dir: string): Promise<void> {
  const found = await stat(dir).catch(() => undefined);
  if (found === undefined) return;
  if (!found.isDirectory()) throw new CommandFailedError(`repo_dir ${dir} is not a directory`);
  if ((await readdir(dir)).length > 0) throw new CommandFailedError(`repo_dir ${dir} is not empty`);
}

/** The source's URL with the credentials for git (dump.go setURLToken: a token goes as oauth2's password). */
function withCredentials(address: string, auth: { username: string; password: string; token: string }): string {
  const url = new URL(address);
  if (auth.token !== '' || auth.username !== '') {
    url.username = encodeURIComponent(auth.token !== '' ? 'oauth2' : auth.username);
    url.password = encodeURIComponent(auth.token !== '' ? auth.token : auth.password);
  }
  return url.toString();
}

/** `text` without credentials: in URLs (Gitea's SanitizeCredentialURLs) and the secrets themselves anywhere. */
function redact(message: string, secrets: string[]): string {
  let clean = message.replace(/([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^\s/@'"]+@/g, '$1sanitized-credential@');
  for (const secret of secrets.filter((value) => value !== '')) clean = clean.split(secret).join('<credentials>');
  return clean;
}

/** A source's refusal or error as the command's failure (Gitea's migration messages), without credentials. */
function failure(error: unknown, secrets: string[]): unknown {
  if (error instanceof OutboundRefusedError) return new CommandFailedError(`${HOST_REFUSED} (${error.message})`);
  if (error instanceof MigrationSourceError) return new CommandFailedError(`Migration failed: ${redact(error.message, secrets)}`);
  return error;
}

function git(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { env, timeout: GIT_TIMEOUT_MS, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The git data as a bare mirror (Gitea: git clone --mirror): fetched with every ref into a new bare repository through
 * the guarded proxy, HEAD set to the source's, and `origin` configured as a mirror clone's without credentials.
 */
async function mirrorGitData(gitDir: string, source: string, authUrl: string, policy: OutboundPolicy, secrets: string[]): Promise<void> {
  const proxy = await startOutboundProxy(policy, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
  try {
    const env = guardedGitEnvironment({ proxyUrl: proxy.url, remote: { name: REMOTE_NAME, url: authUrl } });
    const run = async (args: string[]): Promise<string> => {
      const result = await git(args, env);
      if (proxy.refusals.length > 0) throw new CommandFailedError(`${HOST_REFUSED} (${proxy.refusals[0].message})`);
      if (result.code !== 0) throw new CommandFailedError(`Clone: ${redact(result.stderr.trim(), secrets) || `git exited with ${result.code}`}`);
      return result.stdout;
    };
    await run(['init', '--bare', '--quiet', gitDir]);
    const local = ['--git-dir', gitDir];
    await run([...local, 'fetch', '--quiet', '--prune', REMOTE_NAME, '+refs/*:refs/*']);
    const head = /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(await run([...local, 'ls-remote', '--symref', REMOTE_NAME, 'HEAD']));
    if (head !== null) await run([...local, 'symbolic-ref', 'HEAD', head[1]]);
    await run([...local, 'config', 'remote.origin.url', source]);
    await run([...local, 'config', 'remote.origin.fetch', '+refs/*:refs/*']);
    await run([...local, 'config', 'remote.origin.mirror', 'true']);
  } finally {
    await proxy.close();
  }
}

/** The repository's info for a plain git source: from its address (dump.go takes the downloader's; git's has none). */
function plainGitInfo(address: string): MigrationRepository {
  const { owner, repo } = parseCloneAddr(address);
  return { name: repo, owner, isPrivate: false, isMirror: false, description: '', cloneUrl: address, originalUrl: address, defaultBranch: '' };
}

export async function runDumpRepo(config: CairnConfig, values: FlagValues, cwd: string): Promise<string> {
  const cloneAddr = text(values, 'clone_addr');
  let url: URL;
  try {
    url = new URL(cloneAddr);
  } catch {
    throw new UsageError(`--clone_addr ${cloneAddr} is not a valid URL`, dumpRepoCommand);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--clone_addr: only http and https sources are supported', dumpRepoCommand);
  const service = serviceOf(text(values, 'git_service'), cloneAddr);
  const items = parseUnits(text(values, 'units'));
  const auth = { username: text(values, 'auth_username'), password: text(values, 'auth_password'), token: text(values, 'auth_token') };
  const secrets = [auth.password, auth.token];
  const baseDir = path.resolve(cwd, text(values, 'repo_dir') || './data');
  await ensureEmptyDir(baseDir);

  const policy = migrationPolicy(config.migrations);
  await checkRemoteHost(policy, url.hostname).catch((error: unknown) => {
    throw failure(error, secrets);
  });

  let downloader: Downloader | undefined;
  let info: MigrationRepository;
  try {
    downloader = service === 'git' ? undefined : await createDownloader(service, { cloneAddr, auth, policy });
    info = downloader === undefined ? plainGitInfo(cloneAddr) : await downloader.getRepoInfo();
  } catch (error) {
    throw failure(error, secrets);
  }
  const source = downloader;
  const dumper = await DumpUploader.create({
    dir: path.join(baseDir, text(values, 'owner_name'), text(values, 'repo_name')),
    async readPatch(pull) {
      const patch = source === undefined ? undefined : await source.getPullPatch(pull);
      if (patch === undefined) throw new MigrationSourceError(404, `pull request #${pull.number} has no patch at the source`);
      return patch;
    },
    openAsset(asset) {
      if (source === undefined) throw new MigrationSourceError(404, `release asset ${asset.name} has no source`);
      return source.openReleaseAsset(asset);
    },
  });
  try {
    await dumper.writeRepo({
      name: info.name,
      owner: info.owner,
      description: info.description,
      cloneAddr,
      originalUrl: info.originalUrl,
      isPrivate: info.isPrivate,
      service,
      wiki: items.wiki,
      issues: items.issues,
      milestones: items.milestones,
      labels: items.labels,
      releases: items.releases,
      comments: items.comments,
      pulls: items.pullRequests,
      assets: items.releaseAssets,
    });
    const source = info.cloneUrl || cloneAddr;
    await mirrorGitData(dumper.gitDir, source, withCredentials(source, auth), policy, secrets);
    if (downloader !== undefined) await migrateItems(downloader, dumper, items, { record: () => Promise.resolve() });
  } catch (error) {
    // As Gitea's dumper's Rollback: nothing half-written stays.
    await rm(dumper.dir, { recursive: true, force: true });
    throw failure(error, secrets);
  }
  return `dumped ${redact(cloneAddr, secrets)} to ${dumper.dir}`;
}
