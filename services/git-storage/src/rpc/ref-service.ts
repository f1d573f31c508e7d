/**
 * RefService: branches and tags. Reads are `for-each-ref` plus one batched object read per page; every move is a
 * compare-and-swap ref transaction (ref-update.ts) followed by cairn.git.pushed through the outbox.
 */
import type { RefServiceService, Repository } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { runGit } from '../git/command';
import { identityEnvironment } from '../git/identity';
import { openRepository } from '../git/open-repository';
import { findRef, listBranchRefs, listTagRefs, pageOf, readBranches, readTags, type RefEntry } from '../git/ref-list';
import { type RefUpdate, refCreated, refDeleted, updateRefs } from '../git/ref-update';
import { BRANCH_PREFIX, TAG_PREFIX, branchRef, isCommitIdLike, refNameProblem, tagRef } from '../git/refs';
import { headBranch, isEmptyRepository, lookupRevision, peelToCommits, resolveRevision } from '../git/revisions';
import { publishPushed, requirePush } from '../events/pushed';
import type { GitStorageContext } from './context';

const branchNotFound = (name: string) => CairnError.notFound(`branch "${name}" does not exist`, { reason: 'branch_not_found' });
const tagNotFound = (name: string) => CairnError.notFound(`tag "${name}" does not exist`, { reason: 'tag_not_found' });
const refMoved = (ref: string, cause: string) =>
  CairnError.precondition(`${ref} changed while it was being updated`, { reason: 'ref_moved', cause: new Error(cause) });

/** Applies `updates` as one compare-and-swap transaction; `onConflict` explains a failure. */
async function applyUpdates(gitDir: string, updates: RefUpdate[], onConflict: (stderr: string) => Promise<CairnError>): Promise<void> {
  const result = await updateRefs(gitDir, updates);
  if (!result.ok) throw await onConflict(result.stderr);
}

/** Why creating `ref` failed: it exists now, or a branch/tag `a` blocks `a/b` (or the reverse). */
async function creationConflict(gitDir: string, ref: string, kind: 'branch' | 'tag', name: string, stderr: string): Promise<CairnError> {
  if ((await findRef(gitDir, ref)) !== undefined) return CairnError.exists(`${kind} "${name}" already exists`, { reason: `${kind}_exists` });
  return CairnError.exists(`${kind} name "${name}" conflicts with an existing ${kind}`, {
    reason: `${kind}_name_conflict`,
    cause: new Error(stderr),
  });
}

export function createRefService(context: GitStorageContext): AsyncServiceOf<typeof RefServiceService> {
  const open = (repository: Repository | undefined) => openRepository(context.root, repository);

  return {
    async listBranches(request) {
      const gitDir = await open(request.repository);
      const refs = await listBranchRefs(gitDir);
      return { branches: await readBranches(gitDir, pageOf(refs, request.page, request.limit)), total: refs.length };
    },

    async getBranch(request) {
      const ref = branchRef(request.name);
      const gitDir = await open(request.repository);
      const entry = await findRef(gitDir, ref);
      if (entry === undefined) throw branchNotFound(request.name);
      const [branch] = await readBranches(gitDir, [entry]);
      return { branch };
    },

    async createBranch(request) {
      const ref = branchRef(request.name);
      const push = requirePush(request.push);
      const gitDir = await open(request.repository);
      if (await isEmptyRepository(gitDir)) throw CairnError.notFound('repository is empty', { reason: 'empty_repository' });
      const start = await resolveRevision(gitDir, request.startPoint);
      if ((await findRef(gitDir, ref)) !== undefined) {
        throw CairnError.exists(`branch "${request.name}" already exists`, { reason: 'branch_exists' });
      }
      const update = refCreated(ref, start.sha);
      await applyUpdates(gitDir, [update], (stderr) => creationConflict(gitDir, ref, 'branch', request.name, stderr));
      await publishPushed(context, { repository: request.repository, push, refUpdates: [update] });
      const [branch] = await readBranches(gitDir, [{ name: request.name, sha: start.sha, objectType: 'commit' }]);
      return { branch };
    },

    async deleteBranch(request) {
      const ref = branchRef(request.name);
      const push = requirePush(request.push);
      const gitDir = await open(request.repository);
      const entry = await findRef(gitDir, ref);
      if (entry === undefined) throw branchNotFound(request.name);
      const update = refDeleted(ref, entry.sha);
      await applyUpdates(gitDir, [update], async (stderr) =>
        (await findRef(gitDir, ref)) === undefined ? branchNotFound(request.name) : refMoved(ref, stderr),
      );
      await publishPushed(context, { repository: request.repository, push, refUpdates: [update] });
      return {};
    },

    async renameBranch(request) {
      const from = branchRef(request.from);
      const to = branchRef(request.to);
      const push = requirePush(request.push);
      const gitDir = await open(request.repository);
      const entry = await findRef(gitDir, from);
      if (entry === undefined) throw branchNotFound(request.from);
      if ((await findRef(gitDir, to)) !== undefined) {
        throw CairnError.exists(`branch "${request.to}" already exists`, { reason: 'branch_exists' });
      }
      const updates = [refDeleted(from, entry.sha), refCreated(to, entry.sha)];
      if (to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) {
        // `a` → `a/b` (or back) cannot be one transaction: git locks the new name while the old still blocks it.
        await renameNested(gitDir, entry.sha, from, to);
      } else {
        await applyUpdates(gitDir, updates, async (stderr) => {
          if ((await findRef(gitDir, to)) !== undefined) return CairnError.exists(`branch "${request.to}" already exists`, { reason: 'branch_exists' });
          return (await findRef(gitDir, from)) === undefined ? branchNotFound(request.from) : refMoved(from, stderr);
        });
      }
      if ((await headBranch(gitDir)) === request.from) {
        await runGit(['symbolic-ref', 'HEAD', to], { gitDir });
      }
      await publishPushed(context, { repository: request.repository, push, refUpdates: updates });
      return {};
    },

    async listTags(request) {
      const gitDir = await open(request.repository);
      const refs = await listTagRefs(gitDir);
      return { tags: await readTags(gitDir, pageOf(refs, request.page, request.limit)), total: refs.length };
    },

    async getTag(request) {
      const ref = tagRef(request.name);
      const gitDir = await open(request.repository);
      const entry = await findRef(gitDir, ref);
      if (entry === undefined) throw tagNotFound(request.name);
      const [tag] = await readTags(gitDir, [entry]);
      return { tag };
    },

    async createTag(request) {
      const ref = tagRef(request.name);
      const push = requirePush(request.push);
      const annotated = request.message.trim() !== '';
      const taggerEnv = annotated ? identityEnvironment('COMMITTER', request.tagger, new Date()) : undefined;
      const gitDir = await open(request.repository);
      const target = await resolveRevision(gitDir, request.target);
      if ((await findRef(gitDir, ref)) !== undefined) {
        throw CairnError.exists(`tag "${request.name}" already exists`, { reason: 'tag_exists' });
      }
      let entry: RefEntry;
      if (taggerEnv !== undefined) {
        entry = await createAnnotatedTag(gitDir, ref, request.name, target.sha, request.message, taggerEnv);
      } else {
        entry = { name: request.name, sha: target.sha, objectType: 'commit' };
        await applyUpdates(gitDir, [refCreated(ref, target.sha)], (stderr) => creationConflict(gitDir, ref, 'tag', request.name, stderr));
      }
      await publishPushed(context, { repository: request.repository, push, refUpdates: [refCreated(ref, entry.sha)] });
      const [tag] = await readTags(gitDir, [entry]);
      return { tag };
    },

    async deleteTag(request) {
      const ref = tagRef(request.name);
      const push = requirePush(request.push);
      const gitDir = await open(request.repository);
      const entry = await findRef(gitDir, ref);
      if (entry === undefined) throw tagNotFound(request.name);
      const update = refDeleted(ref, entry.sha);
      await applyUpdates(gitDir, [update], async (stderr) =>
        (await findRef(gitDir, ref)) === undefined ? tagNotFound(request.name) : refMoved(ref, stderr),
      );
      await publishPushed(context, { repository: request.repository, push, refUpdates: [update] });
      return {};
    },

    async resolveRevision(request) {
      const gitDir = await open(request.repository);
      const resolved = await resolveRevision(gitDir, request.revision);
      return { sha: resolved.sha, kind: resolved.kind, refName: resolved.refName };
    },

    async resolveRefPath(request) {
      const gitDir = await open(request.repository);
      const resolved = await resolveRefPath(gitDir, request.path);
      if (resolved === undefined) throw CairnError.notFound(`no branch, tag or commit starts "${request.path}"`, { reason: 'revision_not_found' });
      return resolved;
    },
  };
}

/** `from` → `to` where one name is inside the other: delete, then create (restoring `from` if that fails). */
async function renameNested(gitDir: string, sha: string, from: string, to: string): Promise<void> {
  const deleted = await updateRefs(gitDir, [refDeleted(from, sha)]);
  if (!deleted.ok) throw refMoved(from, deleted.stderr);
  const created = await updateRefs(gitDir, [refCreated(to, sha)]);
  if (!created.ok) {
    await updateRefs(gitDir, [refCreated(from, sha)]);
    throw CairnError.exists(`branch "${to.slice(BRANCH_PREFIX.length)}" already exists`, {
      reason: 'branch_exists',
      cause: new Error(created.stderr),
    });
  }
}

/**
 * Writes an annotated tag with `git tag` (which builds the tag object and creates the ref only if it is still
 * absent). The tagger comes from GIT_COMMITTER_*; `--cleanup=whitespace` keeps lines starting with `#`.
 */
async function createAnnotatedTag(
  gitDir: string,
  ref: string,
  name: string,
  commitSha: string,
  message: string,
  taggerEnv: NodeJS.ProcessEnv,
): Promise<RefEntry> {
  const { exitCode, stderr } = await runGit(
    ['tag', '--annotate', '--cleanup=whitespace', '--file=-', '--end-of-options', name, commitSha],
    { gitDir, stdin: message, env: taggerEnv, okExitCodes: [0, 128] },
  );
  if (exitCode !== 0) throw await creationConflict(gitDir, ref, 'tag', name, stderr);
  const entry = await findRef(gitDir, ref);
  if (entry === undefined) throw CairnError.internal('annotated tag vanished after creation');
  return entry;
}

/**
 * Gitea's getRefNameLegacy: the leading segments of `path` that name a branch (or `HEAD`, the default branch),
 * else a tag, else a commit id; the rest is the path inside the tree. Branch `a` and `a/b` cannot both exist, so
 * at most one prefix is a branch (and likewise for tags).
 */
async function resolveRefPath(gitDir: string, path: string) {
  const segments = path.split('/');
  const prefixes = segments.map((_, index) => segments.slice(0, index + 1).join('/'));
  const restAfter = (ref: string) => segments.slice(ref.split('/').length).join('/');

  if (segments[0] === 'HEAD') {
    const head = await lookupRevision(gitDir, 'HEAD');
    if (head !== undefined) return { ref: head.name, kind: 'branch', sha: head.sha, rest: restAfter('HEAD') };
  }
  const candidates = prefixes.filter((prefix) => refNameProblem(prefix) === undefined);
  if (candidates.length > 0) {
    const patterns = candidates.flatMap((prefix) => [BRANCH_PREFIX + prefix, TAG_PREFIX + prefix]);
    const { stdout } = await runGit(['for-each-ref', '--format=%(refname)', ...patterns], { gitDir });
    const existing = new Set(stdout.toString('utf8').split('\n'));
    for (const [prefix, kind] of [
      [BRANCH_PREFIX, 'branch'],
      [TAG_PREFIX, 'tag'],
    ] as const) {
      const name = candidates.find((candidate) => existing.has(prefix + candidate));
      if (name === undefined) continue;
      const [sha] = await peelToCommits(gitDir, [prefix + name]);
      if (sha !== undefined) return { ref: name, kind, sha, rest: restAfter(name) };
    }
  }
  const first = segments[0] ?? '';
  if (isCommitIdLike(first)) {
    const commit = await lookupRevision(gitDir, first);
    if (commit !== undefined && commit.kind === 'commit') return { ref: first, kind: 'commit', sha: commit.sha, rest: restAfter(first) };
  }
  return undefined;
}
