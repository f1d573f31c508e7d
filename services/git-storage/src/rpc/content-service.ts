/**
 * ContentService: trees and blobs at a revision, file writes as commits (contents API), and archives. Reads
 * resolve the revision once and answer the commit they read; writes commit through a temporary index
 * (commit-files.ts) and move the branch with a compare-and-swap before publishing cairn.git.pushed.
 */
import type { ContentServiceService, GetTreeEntryResponse, TreeEntry, WriteFilesRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { checkProtectedWrite } from '../domain/branch-rules';
import { checkChanges, pathsToLookUp, planIndexEdits } from '../domain/file-changes';
import { commitMessage } from '../domain/commit-message';
import { publishPushed, requirePush } from '../events/pushed';
import { parseArchiveFormat, streamArchive } from '../git/archive';
import { runGit } from '../git/command';
import { commitFiles } from '../git/commit-files';
import { identityEnvironment } from '../git/identity';
import { readCommits } from '../git/log';
import { openRepository, requireRepository } from '../git/open-repository';
import { normalizeRepoPath } from '../git/paths';
import { findRef } from '../git/ref-list';
import { updateRefs } from '../git/ref-update';
import { ZERO_SHA, branchRef } from '../git/refs';
import { headBranch, isEmptyRepository, resolveRevision } from '../git/revisions';
import { readGitPrefix, streamGit } from '../git/stream';
import { findEntry, lastCommits, listDirectory, rootEntry } from '../git/tree';
import { type GitStorageContext, NODE_TRANSFERS } from './context';

/**
 * Gitea's `[api] DEFAULT_MAX_BLOB_SIZE`: the content GetTreeEntry returns when the request sets no limit, and the
 * largest file WriteFiles accepts unless the context says otherwise.
 */
export const DEFAULT_MAX_BLOB_SIZE = 10 * 1024 * 1024;

const pathNotFound = (path: string) => CairnError.notFound(`path "${path}" does not exist`, { reason: 'path_not_found' });

/** The entry at `path` (`''`: the root) of commit `sha`; NOT_FOUND when there is none. */
async function entryAt(gitDir: string, sha: string, path: string): Promise<TreeEntry> {
  if (path === '') {
    const [commit] = await readCommits(gitDir, [sha]);
    return rootEntry(commit?.treeSha ?? '');
  }
  const entry = await findEntry(gitDir, sha, path);
  if (entry === undefined) throw pathNotFound(path);
  return entry;
}

/** The entries at `paths` of commit `sha`, listing each parent directory once; absent keys: nothing there. */
async function entriesAt(gitDir: string, sha: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
  const dirs = new Set(paths.map((path) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '')));
  const listings = await Promise.all([...dirs].map((dir) => listDirectory(gitDir, sha, dir)));
  const wanted = new Set(paths);
  return new Map(listings.flatMap((entries) => entries ?? []).filter((entry) => wanted.has(entry.path)).map((entry) => [entry.path, entry]));
}

export function createContentService(context: GitStorageContext): AsyncServiceOf<typeof ContentServiceService> {
  const maxFileSize = context.maxFileSize ?? DEFAULT_MAX_BLOB_SIZE;

  return {
    async getTreeEntry(request) {
      const path = normalizeRepoPath(request.path);
      const gitDir = await openRepository(context.root, request.repository);
      const { sha } = await resolveRevision(gitDir, request.revision);
      const entry = await entryAt(gitDir, sha, path);
      const response: GetTreeEntryResponse = { entry, entries: [], content: Buffer.alloc(0), truncated: false, commitSha: sha };
      if (entry.type === 'dir') {
        response.entries = (await listDirectory(gitDir, sha, path)) ?? [];
      } else if (entry.type === 'file' && request.withContent) {
        const max = request.maxContentBytes > 0 ? request.maxContentBytes : DEFAULT_MAX_BLOB_SIZE;
        response.content = await readGitPrefix(['cat-file', 'blob', entry.sha], max, { gitDir });
        response.truncated = entry.size > max;
      }
      if (request.withLastCommit) {
        const commits = await lastCommits(gitDir, sha, [entry.path, ...response.entries.map((child) => child.path)]);
        for (const item of [entry, ...response.entries]) item.lastCommit = commits.get(item.path);
      }
      return response;
    },

    async *getBlob(request, ctx) {
      const path = normalizeRepoPath(request.path);
      const gitDir = await openRepository(context.root, request.repository);
      const { sha } = await resolveRevision(gitDir, request.revision);
      const entry = await entryAt(gitDir, sha, path);
      // Gitea's raw files: directories and submodules have no bytes to serve.
      if (entry.type !== 'file' && entry.type !== 'symlink') throw pathNotFound(path);
      let first = true;
      for await (const data of streamGit(['cat-file', 'blob', entry.sha], { gitDir, signal: ctx.signal })) {
        yield { entry: first ? entry : undefined, data };
        first = false;
      }
      if (first) yield { entry, data: Buffer.alloc(0) };
    },

    async writeFiles(request) {
      return writeFiles(context, request, maxFileSize);
    },

    async *getArchive(request, ctx) {
      const format = parseArchiveFormat(request.format);
      const prefix = normalizeRepoPath(request.prefix);
      const gitDir = await openRepository(context.root, request.repository);
      const { sha } = await resolveRevision(gitDir, request.revision);
      // An archive of a large tree is as heavy as a clone: it takes one of the node's transfer slots.
      const release = await context.transfers.acquire(NODE_TRANSFERS, ctx.signal);
      try {
        for await (const data of streamArchive(gitDir, sha, format, prefix, ctx.signal)) yield { data };
      } finally {
        release();
      }
    },
  };
}

/** WriteFiles: validate everything, commit, swap the branch, publish; see the RPC's comment for the errors. */
async function writeFiles(context: GitStorageContext, request: WriteFilesRequest, maxFileSize: number) {
  const changes = checkChanges(request.files, maxFileSize);
  const push = requirePush(request.push);
  const now = new Date();
  const author = request.author;
  const committer = request.committer ?? (author === undefined ? undefined : { ...author, when: undefined });
  const identity = { ...identityEnvironment('AUTHOR', author, now), ...identityEnvironment('COMMITTER', committer, now) };
  if (request.branch !== '') branchRef(request.branch);
  if (request.newBranch !== '') branchRef(request.newBranch);
  const repository = requireRepository(request.repository);
  const gitDir = await openRepository(context.root, repository);

  const branch = request.branch !== '' ? request.branch : await headBranch(gitDir);
  if (branch === '') throw CairnError.precondition('HEAD names no branch', { reason: 'branch_not_found' });
  const head = await findRef(gitDir, branchRef(branch));
  const empty = head === undefined && (await isEmptyRepository(gitDir));
  if (head === undefined && !empty) throw CairnError.notFound(`branch "${branch}" does not exist`, { reason: 'branch_not_found' });
  const target = request.newBranch !== '' ? request.newBranch : branch;
  const targetRef = branchRef(target);
  if (target !== branch) {
    if ((await findRef(gitDir, targetRef)) !== undefined) throw CairnError.exists(`branch "${target}" already exists`, { reason: 'branch_exists' });
  } else {
    // Gitea checks the branch's rule only for a commit on the branch itself, not for one starting a new branch.
    checkProtectedWrite(request.rule, changes.map((change) => change.path), push.pusherName);
  }

  const parent = head?.sha;
  const existing = parent === undefined ? new Map<string, TreeEntry>() : await entriesAt(gitDir, parent, pathsToLookUp(changes));
  const edits = planIndexEdits(changes, existing);
  const message = commitMessage(request.message, request.signoff ? committer : undefined);
  const commitSha = await commitFiles(gitDir, { parent, edits, message, identity });

  const update = { ref: targetRef, oldSha: target === branch && parent !== undefined ? parent : ZERO_SHA, newSha: commitSha };
  const result = await updateRefs(gitDir, [update]);
  if (!result.ok) {
    if (target !== branch || parent === undefined) {
      throw CairnError.exists(`branch "${target}" already exists`, { reason: 'branch_exists', cause: new Error(result.stderr) });
    }
    throw CairnError.precondition(`branch "${branch}" moved while the files were being written`, {
      reason: 'ref_moved',
      cause: new Error(result.stderr),
    });
  }
  // The first branch of an empty repository becomes HEAD's, as the first push does.
  if (empty && (await headBranch(gitDir)) !== target) await runGit(['symbolic-ref', 'HEAD', targetRef], { gitDir });
  await publishPushed(context, { repository, push, refUpdates: [update] });

  const [commit] = await readCommits(gitDir, [commitSha]);
  const written = await entriesAt(gitDir, commitSha, changes.filter((change) => change.operation !== 'delete').map((change) => change.path));
  // A repeated field cannot hold "unset": a deletion's place keeps an empty entry, so entries stay in request order.
  const entries = changes.map((change) => (change.operation === 'delete' ? undefined : written.get(change.path)) ?? emptyEntry());
  return { commit, branch: target, entries };
}

function emptyEntry(): TreeEntry {
  return { name: '', path: '', type: '', sha: '', size: 0, mode: '', target: '', lastCommit: undefined };
}
