/**
 * Branches and tags with their objects. Listing is one `for-each-ref` (git sorts), a page then costs one
 * `cat-file --batch` for all of its commits and tag objects.
 */
import type { Branch, Tag } from '@cairn/proto/cairn/git/v1/git_service';
import { parseCommit, parseTagObject, toTag } from '../domain/git-objects';
import { runGit } from './command';
import { readObjects } from './objects';
import { BRANCH_PREFIX, TAG_PREFIX } from './refs';

export interface RefEntry {
  /** Short name (`main`, `v1.0`). */
  name: string;
  /** What the ref points at: a commit, or for annotated tags the tag object. */
  sha: string;
  objectType: string;
}

async function forEachRef(gitDir: string, prefix: string, sortKeys: readonly string[]): Promise<RefEntry[]> {
  // git applies the last --sort first: the earlier keys break its ties.
  const { stdout } = await runGit(
    ['for-each-ref', ...sortKeys.map((key) => `--sort=${key}`), '--format=%(refname)%00%(objectname)%00%(objecttype)', prefix],
    { gitDir },
  );
  const entries: RefEntry[] = [];
  for (const line of stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    const [ref = '', sha = '', objectType = ''] = line.split('\0');
    entries.push({ name: ref.slice(prefix.length), sha, objectType });
  }
  return entries;
}

/** Every branch, head commit time newest first, then name (Gitea's `commit_time DESC, name ASC`). */
export function listBranchRefs(gitDir: string): Promise<RefEntry[]> {
  return forEachRef(gitDir, BRANCH_PREFIX, ['refname', '-committerdate']);
}

/** Every tag, newest (tag object or commit creation time) first, then name. */
export function listTagRefs(gitDir: string): Promise<RefEntry[]> {
  return forEachRef(gitDir, TAG_PREFIX, ['refname', '-creatordate']);
}

/** One branch's or tag's entry; undefined when it does not exist. */
export async function findRef(gitDir: string, fullRef: string): Promise<RefEntry | undefined> {
  const prefix = fullRef.startsWith(TAG_PREFIX) ? TAG_PREFIX : BRANCH_PREFIX;
  const { stdout } = await runGit(['for-each-ref', '--format=%(refname)%00%(objectname)%00%(objecttype)', fullRef], { gitDir });
  for (const line of stdout.toString('utf8').split('\n')) {
    const [ref = '', sha = '', objectType = ''] = line.split('\0');
    // for-each-ref matches `refs/heads/a` for `refs/heads/a/b` too: keep the exact name only.
    if (ref === fullRef) return { name: ref.slice(prefix.length), sha, objectType };
  }
  return undefined;
}

/** `items` of 1-based `page` of `limit` (every item with limit ≤ 0). */
export function pageOf<T>(items: readonly T[], page: number, limit: number): T[] {
  if (limit <= 0) return [...items];
  const start = (Math.max(page, 1) - 1) * limit;
  return items.slice(start, start + limit);
}

const peeled = (sha: string) => `${sha}^{commit}`;

/** Branches with their head commits. */
export async function readBranches(gitDir: string, refs: readonly RefEntry[]): Promise<Branch[]> {
  const objects = await readObjects(gitDir, refs.map((ref) => peeled(ref.sha)));
  return refs.map((ref) => {
    const commit = objects.get(peeled(ref.sha));
    return { name: ref.name, commit: commit === undefined ? undefined : parseCommit(commit.sha, commit.data) };
  });
}

/** Tags with their peeled commits, and message and tagger for annotated ones. */
export async function readTags(gitDir: string, refs: readonly RefEntry[]): Promise<Tag[]> {
  const annotated = refs.filter((ref) => ref.objectType === 'tag').map((ref) => ref.sha);
  const objects = await readObjects(gitDir, [...annotated, ...refs.map((ref) => peeled(ref.sha))]);
  return refs.map((ref) => {
    const commit = objects.get(peeled(ref.sha));
    const tagObject = ref.objectType === 'tag' ? objects.get(ref.sha) : undefined;
    return toTag(
      ref.name,
      ref.sha,
      commit === undefined ? undefined : parseCommit(commit.sha, commit.data),
      tagObject === undefined ? undefined : parseTagObject(tagObject.data),
    );
  });
}
