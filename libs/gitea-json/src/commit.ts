/**
 * git-storage's commits → Gitea's commit shapes (services/convert/git_commit.go `ToCommit`, convert.go
 * `ToPayloadCommit`/`ToVerification`, services/repository/files/commit.go `GetFileCommitResponse`). A commit's
 * times keep the time zone git recorded, as Gitea shows them.
 *
 * A `Commit`'s author and committer are the users owning their e-mail addresses, shaped for the caller (Gitea's
 * `ToCommit` with GetUserByEmail): one accounts BatchGetUsersByEmail for every commit of a response; null for an
 * address no active user owns. A payload commit's `username` stays empty.
 *
 * Verification (Gitea's ParseCommitWithSignature) is git-storage's, asked for with the commits: a verified commit
 * says `<signer name> / <key id>` and names the signer (`name` the user name, `username` empty, as Gitea's
 * ToVerification). Unlike Gitea, the signer's `email` is the committer address the key vouches for, not the
 * user's primary address (which may be private). Commits read without verification (a branch's head, a contents
 * write) report a signature as not matched to a key.
 */
import { GO_ZERO_TIME, goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { ChangedFile, Commit, Signature } from '@cairn/proto/cairn/git/v1/git_service';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertWith } from './services';
import { repoApiUrl, repoHtmlUrl } from './repository';
import { type ApiUser, toApiUser } from './user';

/** Where Gitea's links to one repository point. */
export interface RepoLinks {
  /** `<ROOT_URL>api/v1/repos/<owner>/<name>` */
  api: string;
  /** `<ROOT_URL><owner>/<name>` */
  html: string;
}

export function repoLinks(rootUrl: string, repo: Pick<Repository, 'ownerName' | 'name'>): RepoLinks {
  return { api: repoApiUrl(rootUrl, repo), html: repoHtmlUrl(rootUrl, repo) };
}

/** Go's RFC 3339 in the signature's own zone (`Z` for +0000), as Gitea marshals a git time. */
export function signatureTime(signature: Signature | undefined): string {
  if (signature?.when === undefined) return GO_ZERO_TIME;
  const match = /^([+-])(\d{2})(\d{2})$/.exec(signature.timezone);
  const minutes = match === null ? 0 : (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
  if (minutes === 0) return goTime(signature.when);
  const local = new Date(signature.when.getTime() + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, '');
  return `${local}${match?.[1]}${match?.[2]}:${match?.[3]}`;
}

/** Gitea's `CommitMeta`. */
export interface ApiCommitMeta {
  url: string;
  sha: string;
  created: string;
}

/** Gitea's `CommitUser`. */
export interface ApiCommitUser {
  name: string;
  email: string;
  date: string;
}

/** Gitea's `PayloadUser`. */
export interface ApiPayloadUser {
  name: string;
  email: string;
  username: string;
}

/** Gitea's `PayloadCommitVerification`. */
export interface ApiVerification {
  verified: boolean;
  reason: string;
  signature: string;
  signer: ApiPayloadUser | null;
  payload: string;
}

export interface ApiCommitStats {
  total: number;
  additions: number;
  deletions: number;
}

export interface ApiCommitAffectedFile {
  filename: string;
  status: string;
}

/** Gitea's `RepoCommit`. */
export interface ApiRepoCommit {
  url: string;
  author: ApiCommitUser;
  committer: ApiCommitUser;
  message: string;
  tree: ApiCommitMeta;
  verification: ApiVerification | null;
}

/** Gitea's `Commit`. */
export interface ApiCommit {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  commit: ApiRepoCommit;
  author: ApiUser | null;
  committer: ApiUser | null;
  parents: ApiCommitMeta[];
  files: ApiCommitAffectedFile[] | null;
  stats: ApiCommitStats | null;
}

/** Gitea's `PayloadCommit` (a branch's head). */
export interface ApiPayloadCommit {
  id: string;
  message: string;
  url: string;
  author: ApiPayloadUser;
  committer: ApiPayloadUser;
  verification: ApiVerification;
  timestamp: string;
  added: string[] | null;
  removed: string[] | null;
  modified: string[] | null;
}

/** Gitea's `FileCommitResponse` (the commit a contents write made). */
export interface ApiFileCommit {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  author: ApiCommitUser;
  committer: ApiCommitUser;
  parents: ApiCommitMeta[];
  message: string;
  tree: ApiCommitMeta;
}

/** Gitea's reason for a commit without a signature. */
export const NOT_SIGNED_REASON = 'gpg.error.not_signed_commit';
/** Gitea's reason for a signature it could not match to a registered key. */
export const NO_KEY_REASON = 'gpg.error.no_gpg_keys_found';

/** Signers' user names, by user id. */
type SignerNames = ReadonlyMap<number, string>;

export function toVerification(commit: Commit, signers: SignerNames = new Map()): ApiVerification {
  if (commit.signature === '') return { verified: false, reason: NOT_SIGNED_REASON, signature: '', signer: null, payload: '' };
  const checked = commit.verification;
  // The instance's own key belongs to no user: its signer is named by git-storage (SIGNING_NAME).
  const name = checked?.verified ? (checked.signerUserId === 0 && checked.signerName !== '' ? checked.signerName : signers.get(checked.signerUserId)) : undefined;
  const signed = { signature: commit.signature, payload: commit.signedPayload };
  if (checked === undefined || name === undefined) {
    // A verified signer gone since (deleted account) vouches for nothing.
    const reason = checked !== undefined && !checked.verified ? checked.reason : NO_KEY_REASON;
    return { verified: false, reason, signer: null, ...signed };
  }
  return { verified: true, reason: `${name} / ${checked.keyId}`, signer: { name, email: checked.signerEmail, username: '' }, ...signed };
}

function commitUser(signature: Signature | undefined, date: string): ApiCommitUser {
  return { name: signature?.name ?? '', email: signature?.email ?? '', date };
}

function payloadUser(signature: Signature | undefined): ApiPayloadUser {
  return { name: signature?.name ?? '', email: signature?.email ?? '', username: '' };
}

function commitUrl(links: RepoLinks, sha: string): string {
  return `${links.api}/git/commits/${encodeURIComponent(sha)}`;
}

/**
 * Gitea lists what `git log --name-status --no-renames` says: a rename is the old path removed and the new one
 * added; a copy is an addition; sorted by name.
 */
export function affectedFiles(files: readonly ChangedFile[]): ApiCommitAffectedFile[] {
  const listed: ApiCommitAffectedFile[] = [];
  for (const file of files) {
    switch (file.status) {
      case 'added':
      case 'copied':
        listed.push({ filename: file.filename, status: 'added' });
        break;
      case 'removed':
        listed.push({ filename: file.filename, status: 'removed' });
        break;
      case 'renamed':
        listed.push({ filename: file.previousFilename, status: 'removed' }, { filename: file.filename, status: 'added' });
        break;
      default:
        listed.push({ filename: file.filename, status: 'modified' });
    }
  }
  return listed.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
}

/** What `GET …/commits` and `GET …/git/commits/{sha}` include (each on unless the query says false). */
export interface CommitParts {
  stat: boolean;
  verification: boolean;
  files: boolean;
}

/** The users owning the e-mail addresses (as written in the commits), by address. */
type UsersByEmail = ReadonlyMap<string, ApiUser>;

async function commitUsers(services: ConvertWith<'users'>, viewer: Actor | undefined, commits: readonly Commit[]): Promise<UsersByEmail> {
  const emails = new Set(commits.flatMap((commit) => [commit.author?.email ?? '', commit.committer?.email ?? '']));
  emails.delete('');
  if (emails.size === 0) return new Map();
  const { users } = await services.clients.users.batchGetUsersByEmail({ emails: [...emails], viewer });
  const rootUrl = services.config.server.rootUrl;
  return new Map(users.flatMap(({ email, user }) => (user === undefined ? [] : [[email, toApiUser(user, { rootUrl })] as const])));
}

/** The user names of the verified commits' signers: one accounts BatchGetUsers, none when nothing is verified. */
async function signerNames(services: ConvertWith<'users'>, viewer: Actor | undefined, commits: readonly Commit[]): Promise<SignerNames> {
  const ids = new Set(commits.flatMap((commit) => (commit.verification?.verified && commit.verification.signerUserId > 0 ? [commit.verification.signerUserId] : [])));
  if (ids.size === 0) return new Map();
  const { users } = await services.clients.users.batchGetUsers({ ids: [...ids], viewer });
  return new Map(users.map((user) => [user.id, user.login]));
}

/**
 * Gitea's `Commit` for each of `commits`, their authors and committers found with one accounts call (and the
 * signers of verified commits with another).
 */
export async function toApiCommits(
  services: ConvertWith<'users'>,
  viewer: Actor | undefined,
  commits: readonly Commit[],
  links: RepoLinks,
  parts: CommitParts,
): Promise<ApiCommit[]> {
  const [users, signers] = await Promise.all([
    commitUsers(services, viewer, commits),
    parts.verification ? signerNames(services, viewer, commits) : new Map<number, string>(),
  ]);
  return commits.map((commit) => toApiCommit(commit, links, parts, users, signers));
}

function toApiCommit(commit: Commit, links: RepoLinks, parts: CommitParts, users: UsersByEmail, signers: SignerNames): ApiCommit {
  const created = signatureTime(commit.committer);
  const url = commitUrl(links, commit.sha);
  return {
    url,
    sha: commit.sha,
    created,
    html_url: `${links.html}/commit/${encodeURIComponent(commit.sha)}`,
    commit: {
      url,
      author: commitUser(commit.author, signatureTime(commit.author)),
      committer: commitUser(commit.committer, created),
      message: commit.message,
      tree: { url: `${links.api}/git/trees/${encodeURIComponent(commit.treeSha)}`, sha: commit.treeSha, created },
      verification: parts.verification ? toVerification(commit, signers) : null,
    },
    author: users.get(commit.author?.email ?? '') ?? null,
    committer: users.get(commit.committer?.email ?? '') ?? null,
    parents: commit.parentShas.map((sha) => ({ url: commitUrl(links, sha), sha, created: GO_ZERO_TIME })),
    files: parts.files ? affectedFiles(commit.files) : null,
    stats: parts.stat ? { total: commit.additions + commit.deletions, additions: commit.additions, deletions: commit.deletions } : null,
  };
}

export function toPayloadCommit(commit: Commit, links: RepoLinks): ApiPayloadCommit {
  return {
    id: commit.sha,
    message: commit.message,
    url: `${links.html}/commit/${encodeURIComponent(commit.sha)}`,
    author: payloadUser(commit.author),
    committer: payloadUser(commit.committer),
    verification: toVerification(commit),
    timestamp: signatureTime(commit.author),
    added: null,
    removed: null,
    modified: null,
  };
}

/** The commit of a contents write; its dates in UTC, as Gitea writes them there. */
export function toFileCommit(commit: Commit, links: RepoLinks): ApiFileCommit {
  const url = commitUrl(links, commit.sha);
  return {
    url,
    sha: commit.sha,
    created: signatureTime(commit.committer),
    html_url: `${links.html}/commit/${encodeURIComponent(commit.sha)}`,
    author: commitUser(commit.author, goTime(commit.author?.when)),
    committer: commitUser(commit.committer, goTime(commit.committer?.when)),
    parents: commit.parentShas.map((sha) => ({ url: commitUrl(links, sha), sha, created: GO_ZERO_TIME })),
    message: commit.message,
    tree: { url: `${links.api}/git/trees/${encodeURIComponent(commit.treeSha)}`, sha: commit.treeSha, created: GO_ZERO_TIME },
  };
}
