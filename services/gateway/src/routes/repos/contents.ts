/**
 * The contents API (routers/api/v1/repo/file.go): read a file (base64) or list a directory at `?ref=` (default
 * branch), and change files as commits — create (201), update (200; without `sha` it creates, 201), delete, or
 * several at once (201). Writes take code write access on a repository that is not archived, honour the branch's
 * protection rule, and commit with the given author, committer and dates (the doer by default).
 * git-storage validates every path (traversal, `.git`, control characters: 422, nothing written) and moves the
 * branch with a compare-and-swap.
 */
import { HttpError, goFormString } from '@cairn/http';
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { BranchRule, FileChange, Signature, WriteFilesResponse } from '@cairn/proto/cairn/git/v1/git_service';
import type { BranchProtectionMatch } from '@cairn/proto/cairn/repos/v1/repos_service';
import { Code } from '@cairn/rpc';
import {
  type ApiContents,
  type ApiFileCommit,
  type ApiVerification,
  type ContentsRef,
  UNIT_CODE,
  toApiContents,
  toFileCommit,
  toVerification,
} from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, doerOf, json } from '../../api/types';
import { decodeBase64 } from './base64';
import {
  ChangeFilesOptions,
  CreateFileOptions,
  DeleteFileOptions,
  type FileOperationValue,
  type IdentityValue,
  type NestedFileOptions,
  UpdateFileOptions,
} from './file-options';
import { READ_ERRORS, type GitRepoContext, answering, canWriteCode, doerSignature, gitRepoOf, pushOf } from './git-context';

const BRANCH_WRITER_MESSAGE = 'user should have a permission to write to this branch';

/** Gitea's `FileResponse` / `FileDeleteResponse` (content null) and `FilesResponse`. */
interface ApiFileResponse {
  content: ApiContents | null;
  commit: ApiFileCommit;
  verification: ApiVerification;
}
interface ApiFilesResponse {
  files: Array<ApiContents | null>;
  commit: ApiFileCommit;
  verification: ApiVerification;
}

function filePathOf<B>(ctx: ApiContext<B>): string {
  return ctx.params.filepath ?? '';
}

/** A branch, tag or commit named by `?ref=` (the default branch when absent), resolved once. */
async function refOf<B>(ctx: ApiContext<B>, repo: GitRepoContext): Promise<{ ref: ContentsRef; sha: string }> {
  const revision = goFormString(ctx.query, 'ref').trim() || repo.repository.defaultBranch;
  const resolved = await ctx.services.clients.refs.resolveRevision({ repository: repo.git, revision });
  const kind = resolved.kind === 'branch' || resolved.kind === 'tag' ? resolved.kind : 'commit';
  const name = kind === 'commit' ? resolved.sha : resolved.refName.replace(/^refs\/(heads|tags)\//, '');
  return { ref: { kind, name }, sha: resolved.sha };
}

async function readContents<B>(ctx: ApiContext<B>, path: string): Promise<ApiContents | ApiContents[]> {
  const repo = gitRepoOf(ctx);
  const { ref, sha } = await refOf(ctx, repo);
  const maxBlob = ctx.services.config.api.defaultMaxBlobSize;
  const found = await ctx.services.clients.contents.getTreeEntry({
    repository: repo.git,
    revision: sha,
    path,
    withContent: true,
    maxContentBytes: maxBlob,
    withLastCommit: true,
  });
  const { entry } = found;
  if (entry === undefined) throw new Error('GetTreeEntry answered without the entry');
  if (entry.type === 'dir') return found.entries.map((child) => toApiContents(child, ref, repo.links, child.lastCommit));
  // Gitea leaves out the content of a blob over [api] DEFAULT_MAX_BLOB_SIZE.
  const content = found.truncated || entry.size > maxBlob ? undefined : found.content;
  return toApiContents(entry, ref, repo.links, entry.lastCommit, content);
}

/**
 * Gitea's GetAuthorAndCommitterUsers: an identity with an e-mail stands for itself (the doer's own address is the
 * doer, with the given name); with only one given it is both; with none, both are the doer.
 */
function identitiesOf(doer: User, doerSig: Signature, author: IdentityValue, committer: IdentityValue): { author: Signature; committer: Signature } {
  const person = (identity: IdentityValue): Signature | undefined => {
    if (identity.email === '') return undefined;
    if (identity.email.toLowerCase() === doer.email.toLowerCase()) return { ...doerSig, name: identity.name.trim() || doerSig.name };
    // A user object without a name writes Gitea's `user-<id>` placeholder, id 0 here.
    return { ...doerSig, name: identity.name.replace(/[\n<>]/g, '').trim() || 'user-0', email: identity.email };
  };
  const givenCommitter = person(committer);
  const givenAuthor = person(author) ?? givenCommitter ?? doerSig;
  return { author: givenAuthor, committer: givenCommitter ?? givenAuthor };
}

/** `+02:00` at the end of an RFC 3339 time → git's `+0200` (Z: `+0000`). */
function zoneOf(text: string | undefined): string {
  const match = text === undefined ? null : /([+-])(\d{2}):(\d{2})$/.exec(text);
  return match === null ? '+0000' : `${match[1]}${match[2]}${match[3]}`;
}

/** Gitea's default message: `Add a, b`, `Update c`, `Delete d`, one line each. */
function defaultMessage(files: ReadonlyArray<{ operation: string; path: string }>): string {
  const paths = (operations: readonly string[]) => files.filter((file) => operations.includes(file.operation)).map((file) => file.path);
  const lines: string[] = [];
  const added = paths(['create']);
  const updated = paths(['update', 'upload', 'rename']);
  const deleted = paths(['delete']);
  if (added.length > 0) lines.push(`Add ${added.join(', ')}`);
  if (updated.length > 0) lines.push(`Update ${updated.join(', ')}`);
  if (deleted.length > 0) lines.push(`Delete ${deleted.join(', ')}`);
  return lines.join('\n');
}

interface WriteOptions extends NestedFileOptions {
  message: string;
  branch: string;
  new_branch: string;
  signoff: boolean;
}

/** A requested change: Gitea's operation name, the path and the decoded content. */
interface RequestedChange {
  operation: string;
  path: string;
  content: Buffer;
  sha: string;
  fromPath: string;
}

/** The branch's protection rule as it applies to the writer; undefined when the branch is unprotected. */
function writeRuleOf(match: BranchProtectionMatch | undefined): BranchRule | undefined {
  const protection = match?.protection;
  if (protection === undefined) return undefined;
  return {
    ruleName: protection.ruleName,
    canPush: match?.userCanPush === true,
    // WriteFiles only adds a commit: forcing and deleting do not come up.
    canForcePush: false,
    canDelete: false,
    requireSignedCommits: protection.requireSignedCommits,
    protectedFilePatterns: protection.protectedFilePatterns,
    unprotectedFilePatterns: protection.unprotectedFilePatterns,
  };
}

/**
 * Commits `changes` as Gitea's ChangeRepoFiles does: the branch writer check, then one WriteFiles carrying the
 * branch's protection rule. Statuses: missing branch or file 404; existing file or branch, stale sha, bad path
 * 422; a rule refusing the write 403.
 */
async function writeFiles<B>(ctx: ApiContext<B>, options: WriteOptions, changes: RequestedChange[]): Promise<{ written: WriteFilesResponse; repo: GitRepoContext }> {
  const repo = gitRepoOf(ctx);
  const doer = doerOf(ctx);
  if (!canWriteCode(repo)) throw HttpError.forbidden(BRANCH_WRITER_MESSAGE);
  // Gitea's canWriteFiles (routers/api/v1/repo/file.go): a mirror's files change only by its syncs.
  if (repo.repository.mirror) {
    throw HttpError.forbidden(`user doesn't have access to repo [user_id: ${doer.id}, repo_name: ${repo.repository.name.toLowerCase()}]`);
  }
  const branch = options.branch || repo.repository.defaultBranch;
  // git-storage checks the branch's rule, and only for a commit on the branch itself (Gitea's ChangeRepoFiles).
  const onBranch = options.new_branch === '' || options.new_branch === branch;
  const { matches } = onBranch
    ? await ctx.services.clients.branchProtections.matchBranchProtection({ viewer: ctx.viewer, repoId: repo.repository.id, branches: [branch] })
    : { matches: [] };

  const now = new Date();
  const doerSig = doerSignature(doer, ctx.services.config, now);
  const people = identitiesOf(doer, doerSig, options.author, options.committer);
  const author: Signature = { ...people.author, when: options.dates.author ?? now, timezone: zoneOf(options.dates.author === undefined ? undefined : options.dateTexts.author) };
  const committer: Signature = {
    ...people.committer,
    when: options.dates.committer ?? now,
    timezone: zoneOf(options.dates.committer === undefined ? undefined : options.dateTexts.committer),
  };
  const files: FileChange[] = changes.map((change) => ({
    // git-storage's update with from_path moves the file, which is Gitea's rename.
    operation: change.operation === 'rename' ? 'update' : change.operation,
    path: change.path,
    content: change.content,
    sha: change.sha,
    fromPath: change.fromPath,
  }));
  const written = await answering(
    ctx.services.clients.contents.writeFiles({
      repository: repo.git,
      branch,
      newBranch: options.new_branch,
      files,
      message: options.message || defaultMessage(changes),
      author,
      committer,
      push: pushOf(ctx),
      signoff: options.signoff,
      rule: writeRuleOf(matches[0]),
    }),
    {
      [Code.NOT_FOUND]: (message) => new HttpError(404, message),
      [Code.ALREADY_EXISTS]: (message) => HttpError.unprocessable(message),
      [Code.FAILED_PRECONDITION]: (message) => HttpError.unprocessable(message),
    },
  );
  return { written, repo };
}

/** The written files as Gitea shows them after the commit (null for deleted ones), in request order. */
function writtenContents<B>(ctx: ApiContext<B>, repo: GitRepoContext, written: WriteFilesResponse, changes: readonly RequestedChange[]): Array<ApiContents | null> {
  const ref: ContentsRef = { kind: 'branch', name: written.branch };
  const maxBlob = ctx.services.config.api.defaultMaxBlobSize;
  return written.entries.map((entry, index) => {
    if (entry === undefined || entry.path === '') return null;
    const content = changes[index]?.content;
    return toApiContents(entry, ref, repo.links, written.commit, content !== undefined && content.length <= maxBlob ? content : undefined);
  });
}

function commitParts(repo: GitRepoContext, written: WriteFilesResponse): { commit: ApiFileCommit; verification: ApiVerification } {
  if (written.commit === undefined) throw new Error('WriteFiles answered without the commit');
  return { commit: toFileCommit(written.commit, repo.links), verification: toVerification(written.commit) };
}

/** One file's change, answered as Gitea's FileResponse. */
async function writeOne<B>(ctx: ApiContext<B>, options: WriteOptions, change: RequestedChange, status: number): Promise<{ status: number; body: ApiFileResponse }> {
  const { written, repo } = await writeFiles(ctx, options, [change]);
  const [content] = writtenContents(ctx, repo, written, [change]);
  return { status, body: { content: change.operation === 'delete' ? null : (content ?? null), ...commitParts(repo, written) } };
}

/** Reads a file's current content for a rename that gives none (Gitea keeps it). */
async function currentContent<B>(ctx: ApiContext<B>, branch: string, path: string): Promise<Buffer> {
  const repo = gitRepoOf(ctx);
  const found = await ctx.services.clients.contents.getTreeEntry({
    repository: repo.git,
    revision: branch || repo.repository.defaultBranch,
    path,
    withContent: true,
    maxContentBytes: ctx.services.config.server.maxBodySize,
    withLastCommit: false,
  });
  if (found.truncated) throw HttpError.unprocessable(`file is too large to rename without its content [path: ${path}]`);
  return found.content;
}

export function registerContentsRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS } as const;
  const writer = { scope: 'repository', auth: 'required', repo: { unit: UNIT_CODE, mode: 'read', archived: 'refuse' } } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/contents',
    operationId: 'repoGetContentsList',
    handler: async (ctx) => json(200, await readContents(ctx, '')),
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    pathWildcards: ['filepath'],
    operationId: 'repoGetContents',
    handler: async (ctx) => json(200, await readContents(ctx, filePathOf(ctx))),
  });

  api.route({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    pathWildcards: ['filepath'],
    operationId: 'repoCreateFile',
    body: CreateFileOptions,
    handler: async (ctx) => {
      const change = { operation: 'create', path: filePathOf(ctx), content: decodeBase64(ctx.body.content), sha: '', fromPath: '' };
      return writeOne(ctx, ctx.body, change, 201);
    },
  });

  api.route({
    ...writer,
    method: 'put',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    pathWildcards: ['filepath'],
    operationId: 'repoUpdateFile',
    body: UpdateFileOptions,
    handler: async (ctx) => {
      const { body } = ctx;
      // Without the sha of the file it replaces, the update creates the file (Gitea 1.24+).
      const creates = body.sha === '';
      const change = { operation: creates ? 'create' : 'update', path: filePathOf(ctx), content: decodeBase64(body.content), sha: body.sha, fromPath: body.from_path };
      return writeOne(ctx, body, change, creates ? 201 : 200);
    },
  });

  api.route({
    ...writer,
    method: 'delete',
    path: '/repos/{owner}/{repo}/contents/{filepath}',
    pathWildcards: ['filepath'],
    operationId: 'repoDeleteFile',
    body: DeleteFileOptions,
    handler: async (ctx) => {
      const change = { operation: 'delete', path: filePathOf(ctx), content: Buffer.alloc(0), sha: ctx.body.sha, fromPath: '' };
      return writeOne(ctx, ctx.body, change, 200);
    },
  });

  api.route({
    ...writer,
    method: 'post',
    path: '/repos/{owner}/{repo}/contents',
    operationId: 'repoChangeFiles',
    body: ChangeFilesOptions,
    handler: async (ctx) => {
      const { body } = ctx;
      const changes: RequestedChange[] = [];
      for (const file of body.files) changes.push(await changeOf(ctx, body.branch, file));
      const { written, repo } = await writeFiles(ctx, body, changes);
      const answer: ApiFilesResponse = { files: writtenContents(ctx, repo, written, changes), ...commitParts(repo, written) };
      return json(201, answer);
    },
  });
}

/** One operation of a multi-file change; update, rename and delete need the sha of the file they replace. */
async function changeOf<B>(ctx: ApiContext<B>, branch: string, file: FileOperationValue): Promise<RequestedChange> {
  if (file.operation !== 'create' && file.operation !== 'upload' && file.sha === '') {
    throw HttpError.unprocessable('either SHA or commit ID must be provided');
  }
  const content =
    file.operation === 'rename' && file.content === '' ? await currentContent(ctx, branch, file.from_path || file.path) : decodeBase64(file.content);
  return { operation: file.operation, path: file.path, content, sha: file.sha, fromPath: file.from_path };
}
