/**
 * MergeService.ImportPullHeads: the git side of migrated pull requests (Gitea's services/migrations/gitea_uploader.go
 * updateGitForPullRequest). Gitea's git step is `git clone --mirror`, which brings the source's refs/pull/*\/head
 * along; Cairn's migration fetches branches and tags only, so the heads the repository lacks are fetched here from the
 * source's refs/pull/<n>/head (those the source advertises). An open pull request from a fork has the fork's head
 * branch fetched into refs/heads/<owner>/<ref> (Gitea's name; head-pr-<n>/<owner>/<ref> when that branch exists for
 * something else). Then refs/pull/<n>/head points at the head commit when it is here (Gitea checks with rev-list and
 * otherwise warns and sets no ref). Each patch is kept as Gitea keeps it, `pulls/<n>.patch` in the repository's
 * directory. Every connection goes through the outbound guard's proxy; nothing is published (no push events).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { uuidv7 } from '@cairn/bus';
import { type OutboundProxy, startOutboundProxy } from '@cairn/outbound';
import type { ImportPullHeadsRequest, ImportPullHeadsResponse, ImportedPullHead, ImportedPullHeadResult } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { redact, remoteTarget } from '../domain/remote-url';
import { runGit } from '../git/command';
import { mergeBase } from '../git/merge';
import { openRepository } from '../git/open-repository';
import { findRef } from '../git/ref-list';
import { BRANCH_PREFIX, ZERO_SHA, refNameProblem } from '../git/refs';
import { REMOTE_NAME, STAGING_PREFIX, runRemoteGit } from '../git/remote';
import { peelToCommits } from '../git/revisions';
import type { GitStorageContext } from './context';

/** Gitea's head branch name when a fork's head could not be fetched. */
const UNKNOWN_HEAD = 'unknown repository';

/** Until each connection to a remote is established (as RemoteService). */
const CONNECT_TIMEOUT_MS = 30_000;

/** Gitea's git.SanitizeRefPattern: what git refuses in a ref name becomes "_"; undefined when still not a name. */
export function sanitizedBranch(name: string): string | undefined {
  const cleaned = name
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0020\u007f~^:?*[\\]/g, '_')
    .replace(/\.\.+/g, '_')
    .replace(/@\{/g, '_')
    .replace(/\/\/+/g, '/')
    .replace(/\.lock(\/|$)/g, '_lock$1')
    .replace(/(^|\/)\./g, '$1_')
    .replace(/\.$/, '_')
    .replace(/^[-/]+|\/+$/g, '');
  return refNameProblem(cleaned) === undefined ? cleaned : undefined;
}

function pullRef(index: number): string {
  return `refs/pull/${index}/head`;
}

/** Writes `pulls/<n>.patch` unless it already holds these bytes (a resumed import writes nothing again). */
async function storePatch(gitDir: string, index: number, patch: Uint8Array): Promise<void> {
  const dir = path.join(gitDir, 'pulls');
  const file = path.join(dir, `${index}.patch`);
  const existing = await readFile(file).catch(() => undefined);
  if (existing !== undefined && Buffer.compare(existing, Buffer.from(patch)) === 0) return;
  await mkdir(dir, { recursive: true });
  // Written whole, then renamed: a reader never sees half a patch.
  const temporary = `${file}.${uuidv7()}.tmp`;
  await writeFile(temporary, patch);
  await rename(temporary, file);
}

export async function importPullHeads(context: GitStorageContext, request: ImportPullHeadsRequest, signal: AbortSignal): Promise<ImportPullHeadsResponse> {
  for (const pull of request.pulls) {
    if (!Number.isSafeInteger(pull.index) || pull.index < 1) throw CairnError.invalid(`invalid pull request index ${pull.index}`, { reason: 'invalid_index' });
    if (pull.headSha !== '' && !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(pull.headSha)) {
      throw CairnError.invalid(`invalid head commit "${pull.headSha}" of pull request #${pull.index}`, { reason: 'invalid_revision' });
    }
  }
  const gitDir = await openRepository(context.root, request.repository);
  const { remotes, logger } = context;
  const log = logger.child({ repo_id: request.repository?.repoId });
  const timeoutMs = request.timeoutSeconds > 0 ? request.timeoutSeconds * 1000 : remotes.migrateTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  for (const pull of request.pulls) if (pull.patch.length > 0) await storePatch(gitDir, pull.index, pull.patch);

  const staging = `${STAGING_PREFIX}${uuidv7()}/`;
  const proxy: OutboundProxy = await startOutboundProxy(remotes.policy, { connectTimeoutMs: CONNECT_TIMEOUT_MS, resolver: remotes.resolver });
  const endPush = await context.pushGc.beginPush(gitDir);
  try {
    const remoteGit = (url: string, args: readonly string[]) =>
      runRemoteGit(args, { gitDir, url, proxyUrl: proxy.url, timeoutMs: Math.max(deadline - Date.now(), 1), signal });
    const present = async (shas: readonly string[]): Promise<Set<string>> => {
      const found = await peelToCommits(gitDir, shas);
      return new Set(shas.filter((_, i) => found[i] !== undefined));
    };

    // 1. The source's refs/pull/<n>/head for head commits not here (a deleted branch's, a fork's).
    const have = await present(request.pulls.map((pull) => pull.headSha).filter((sha) => sha !== ''));
    const missing = request.pulls.filter((pull) => pull.headSha !== '' && !have.has(pull.headSha));
    if (missing.length > 0 && request.url !== '') {
      const target = remoteTarget(request.url, request.auth);
      const advertised = await remoteGit(target.url, ['ls-remote', '--end-of-options', REMOTE_NAME, ...missing.map((pull) => pullRef(pull.index))]);
      const names = new Set(advertised.exitCode === 0 ? advertised.stdout.toString('utf8').split('\n').map((line) => line.split('\t')[1] ?? '') : []);
      const wanted = missing.filter((pull) => names.has(pullRef(pull.index)));
      if (advertised.exitCode !== 0) log.warn({ stderr: redact(advertised.stderr.trim(), target) }, 'listing the source pull request heads failed');
      if (wanted.length > 0) {
        const fetched = await remoteGit(target.url, [
          'fetch', '--no-tags', '--no-write-fetch-head', '--end-of-options', REMOTE_NAME,
          ...wanted.map((pull) => `+${pullRef(pull.index)}:${staging}pull/${pull.index}`),
        ]);
        if (fetched.exitCode !== 0) log.warn({ stderr: redact(fetched.stderr.trim(), target) }, 'fetching the source pull request heads failed');
      }
    }

    // 2. Open pull requests from forks: the fork's head branch into refs/heads/<owner>/<ref> (Gitea's prHeadCache).
    const forkBranches = new Map<string, string>();
    const heads = new Map<number, { branch: string; sha: string }>();
    for (const pull of request.pulls) {
      if (!pull.fromFork) continue;
      const fetched = await fetchForkHead(pull, forkBranches, remoteGit, gitDir, staging, log);
      if (fetched !== undefined) heads.set(pull.index, fetched);
    }

    // 3. refs/pull/<n>/head at the head commit when it is here, and the merge base.
    const results: ImportedPullHeadResult[] = [];
    // A pull request whose source named no head commit keeps the refs/pull/<n>/head the git data brought (a dump's
    // bundle), as Gitea's API reads a pull's head from that ref (convert.ToAPIPullRequest).
    const kept = await peelToCommits(gitDir, request.pulls.map((pull) => pullRef(pull.index)));
    const shas = request.pulls.map((pull, i) => pull.headSha || heads.get(pull.index)?.sha || kept[i] || '');
    const here = await present(shas.filter((sha) => sha !== ''));
    for (const [i, pull] of request.pulls.entries()) {
      const sha = shas[i];
      const branch = pull.fromFork ? (heads.get(pull.index)?.branch ?? UNKNOWN_HEAD) : pull.headRef || UNKNOWN_HEAD;
      if (sha === '' || !here.has(sha)) {
        log.warn({ index: pull.index, head: sha }, 'the head commit of an imported pull request is not here: no pull head ref');
        results.push({ index: pull.index, headBranch: branch, headCommitId: '', mergeBase: pull.baseSha });
        continue;
      }
      await runGit(['update-ref', '--no-deref', pullRef(pull.index), sha], { gitDir });
      results.push({ index: pull.index, headBranch: branch, headCommitId: sha, mergeBase: pull.baseSha || (await baseOf(gitDir, pull.baseRef, sha)) });
    }
    return { pulls: results };
  } finally {
    endPush();
    await runGit(['for-each-ref', '--format=delete %(refname)', '--end-of-options', staging], { gitDir })
      .then(({ stdout }) => (stdout.length > 0 ? runGit(['update-ref', '--stdin'], { gitDir, stdin: stdout }) : undefined))
      .catch((error: unknown) => log.warn({ err: error }, 'removing the staged pull request heads failed'));
    await proxy.close();
  }
}

/** The merge base of the base branch and the head (Gitea's GetMergeBase when the source names no base commit). */
async function baseOf(gitDir: string, baseRef: string, head: string): Promise<string> {
  if (refNameProblem(baseRef) !== undefined) return '';
  const tip = await findRef(gitDir, `${BRANCH_PREFIX}${baseRef}`);
  if (tip === undefined) return '';
  return (await mergeBase(gitDir, tip.sha, head)) ?? '';
}

/**
 * Fetches an open fork pull request's head branch (without the source's credentials: they are for the source's own
 * address) into refs/heads/<owner>/<ref>, or head-pr-<n>/<owner>/<ref> when that name holds another commit. A branch
 * already at the head (this import's earlier run) is reused. Undefined when the fork cannot be fetched (logged).
 */
async function fetchForkHead(
  pull: ImportedPullHead,
  cache: Map<string, string>,
  remoteGit: (url: string, args: readonly string[]) => ReturnType<typeof runRemoteGit>,
  gitDir: string,
  staging: string,
  log: GitStorageContext['logger'],
): Promise<{ branch: string; sha: string } | undefined> {
  if (pull.headCloneUrl === '' || pull.headRef === '' || refNameProblem(pull.headRef) !== undefined) return undefined;
  const key = `${pull.headCloneUrl}:${pull.headRef}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    const tip = await findRef(gitDir, `${BRANCH_PREFIX}${cached}`);
    return tip === undefined ? undefined : { branch: cached, sha: tip.sha };
  }
  let target;
  try {
    target = remoteTarget(pull.headCloneUrl, undefined);
  } catch (error) {
    log.warn({ err: error, index: pull.index }, 'the fork of an imported pull request has no usable clone address');
    return undefined;
  }
  const stagedRef = `${staging}fork/${pull.index}`;
  const fetched = await remoteGit(target.url, ['fetch', '--no-tags', '--no-write-fetch-head', '--end-of-options', REMOTE_NAME, `+${BRANCH_PREFIX}${pull.headRef}:${stagedRef}`]);
  if (fetched.exitCode !== 0) {
    log.warn({ index: pull.index, stderr: redact(fetched.stderr.trim(), target) }, 'fetching the head branch of a fork pull request failed');
    return undefined;
  }
  const [sha] = await peelToCommits(gitDir, [stagedRef]);
  if (sha === undefined) return undefined;
  const preferred = sanitizedBranch(`${pull.headOwner}/${pull.headRef}`);
  const candidates = [preferred, preferred === undefined ? undefined : sanitizedBranch(`head-pr-${pull.index}/${preferred}`), sanitizedBranch(`head-pr-${pull.index}`)];
  for (const branch of candidates) {
    if (branch === undefined) continue;
    const existing = await findRef(gitDir, `${BRANCH_PREFIX}${branch}`);
    if (existing !== undefined && existing.sha !== sha) continue;
    if (existing === undefined) {
      // Created only if still absent: a branch pushed meanwhile is not overwritten.
      const created = await runGit(['update-ref', '--no-deref', `${BRANCH_PREFIX}${branch}`, sha, ZERO_SHA], { gitDir, okExitCodes: [0, 1, 128] });
      if (created.exitCode !== 0) continue;
    }
    cache.set(key, branch);
    return { branch, sha };
  }
  log.warn({ index: pull.index }, 'no free branch name for the head of a fork pull request');
  return undefined;
}
