/**
 * Tree entries → Gitea's `ContentsResponse` (services/repository/files/content.go `GetContents`): the entry,
 * the commit that last touched it, its content (files asked for one by one, base64) and its links, which name
 * the ref the caller read it at (`…/raw/branch/main/a.md`, `…?ref=main`).
 */
import type { Commit, TreeEntry } from '@cairn/proto/cairn/git/v1/git_service';
import { type RepoLinks, signatureTime } from './commit';

/** What the caller read: a branch, a tag or a commit, by name (a commit by its sha). */
export interface ContentsRef {
  kind: 'branch' | 'tag' | 'commit';
  name: string;
}

export interface ApiFileLinks {
  self: string;
  git: string | null;
  html: string | null;
}

/** Gitea's `ContentsResponse`. */
export interface ApiContents {
  name: string;
  path: string;
  sha: string;
  last_commit_sha: string;
  last_committer_date: string;
  last_author_date: string;
  last_commit_message: string;
  type: string;
  size: number;
  encoding: string | null;
  content: string | null;
  target: string | null;
  url: string;
  html_url: string | null;
  git_url: string | null;
  download_url: string | null;
  submodule_git_url: string | null;
  _links: ApiFileLinks;
}

function escapeSegments(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** git's object type of an entry, as in `…/git/blobs/<sha>` and `…/git/trees/<sha>`. */
function objectType(entry: TreeEntry): string {
  return entry.type === 'dir' ? 'tree' : 'blob';
}

/**
 * One entry. `content` is the file's bytes when they are part of the answer (a single file up to
 * `[api] DEFAULT_MAX_BLOB_SIZE`); `lastCommit` the commit that last changed the path.
 */
export function toApiContents(entry: TreeEntry, ref: ContentsRef, links: RepoLinks, lastCommit: Commit | undefined, content?: Uint8Array): ApiContents {
  const self = `${links.api}/contents/${escapeSegments(entry.path)}?ref=${encodeURIComponent(ref.name)}`;
  const submodule = entry.type === 'submodule';
  const refPath = `${ref.kind}/${escapeSegments(ref.name)}/${escapeSegments(entry.path)}`;
  const html = submodule ? null : `${links.html}/src/${refPath}`;
  const git = submodule ? null : `${links.api}/git/${objectType(entry)}s/${encodeURIComponent(entry.sha)}`;
  const isFile = entry.type === 'file';
  return {
    name: entry.name,
    path: entry.path,
    sha: entry.sha,
    last_commit_sha: lastCommit?.sha ?? '',
    last_committer_date: signatureTime(lastCommit?.committer),
    last_author_date: signatureTime(lastCommit?.author),
    last_commit_message: lastCommit?.message ?? '',
    type: entry.type,
    size: entry.size,
    encoding: isFile && content !== undefined ? 'base64' : null,
    content: isFile && content !== undefined ? Buffer.from(content).toString('base64') : null,
    target: entry.type === 'symlink' ? entry.target : null,
    url: self,
    html_url: html,
    git_url: git,
    download_url: isFile || entry.type === 'symlink' ? `${links.html}/raw/${refPath}` : null,
    submodule_git_url: null,
    _links: { self, git, html },
  };
}
