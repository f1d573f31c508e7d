/**
 * Tree entries through `git ls-tree --long -z`: one process lists a directory (the only way to learn an entry's
 * mode, which tells files, executables, symlinks and submodules apart).
 */
import type { Commit, TreeEntry } from '@cairn/proto/cairn/git/v1/git_service';
import { runGit } from './command';
import { LITERAL_PATHS, readCommits } from './log';
import { readObjects } from './objects';

/** Gitea reads at most this much of a symlink blob as its target. */
const SYMLINK_TARGET_BYTES = 1024;

/** Gitea's ContentsResponse type of a tree entry mode. */
export function entryTypeOf(mode: string): string {
  switch (mode) {
    case '040000':
      return 'dir';
    case '120000':
      return 'symlink';
    case '160000':
      return 'submodule';
    default:
      return 'file';
  }
}

function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

/**
 * The entries of directory `dir` (a normalized path, `''` for the root) at `commitSha`, in git's tree order
 * (by name, as Gitea's contents API lists them); undefined when `dir` is missing or not a directory.
 */
export async function listDirectory(gitDir: string, commitSha: string, dir: string): Promise<TreeEntry[] | undefined> {
  // `<commit>:<path>` names the tree directly, so the listing is one level, never recursive.
  const { stdout, exitCode } = await runGit(['ls-tree', '--long', '-z', '--end-of-options', `${commitSha}:${dir}`], {
    gitDir,
    okExitCodes: [0, 128],
  });
  if (exitCode !== 0) return undefined;
  const entries: TreeEntry[] = [];
  for (const record of stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    // "<mode> SP <type> SP <sha> SP+ <size or -> TAB <name>"
    const tab = record.indexOf('\t');
    const [mode = '', , sha = '', size = '-'] = record.slice(0, tab).split(/ +/);
    const name = record.slice(tab + 1);
    entries.push({
      name,
      path: joinPath(dir, name),
      type: entryTypeOf(mode),
      sha,
      size: size === '-' ? 0 : Number(size),
      mode,
      target: '',
      lastCommit: undefined,
    });
  }
  await addSymlinkTargets(gitDir, entries);
  return entries;
}

/** Symlinks' targets: their blobs' contents (the first 1 KiB, as Gitea reads them). */
async function addSymlinkTargets(gitDir: string, entries: TreeEntry[]): Promise<void> {
  const links = entries.filter((entry) => entry.type === 'symlink');
  if (links.length === 0) return;
  const blobs = await readObjects(gitDir, links.map((link) => link.sha));
  for (const link of links) {
    link.target = blobs.get(link.sha)?.data.subarray(0, SYMLINK_TARGET_BYTES).toString('utf8') ?? '';
  }
}

/** The root directory's entry. */
export function rootEntry(treeSha: string): TreeEntry {
  return { name: '', path: '', type: 'dir', sha: treeSha, size: 0, mode: '040000', target: '', lastCommit: undefined };
}

/** The entry at `path` (normalized, not the root) at `commitSha`; undefined when nothing is there. */
export async function findEntry(gitDir: string, commitSha: string, path: string): Promise<TreeEntry | undefined> {
  const slash = path.lastIndexOf('/');
  const siblings = await listDirectory(gitDir, commitSha, slash < 0 ? '' : path.slice(0, slash));
  return siblings?.find((entry) => entry.path === path);
}

/** How many `git rev-list` processes lastCommits runs at once. */
const LAST_COMMIT_CONCURRENCY = 8;

/**
 * For each path, the newest commit reachable from `commitSha` that touched it (`git rev-list -1 -- <path>`, as
 * Gitea's GetCommitByPath; `''` is the commit itself).
 */
export async function lastCommits(gitDir: string, commitSha: string, paths: readonly string[]): Promise<Map<string, Commit>> {
  const shaByPath = new Map<string, string>();
  const queue = [...new Set(paths)];
  const worker = async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const args = ['rev-list', '--max-count=1', '--end-of-options', commitSha, '--', ...(path === '' ? [] : [path])];
      const { stdout } = await runGit(args, { gitDir, env: LITERAL_PATHS });
      const sha = stdout.toString('utf8').trim();
      if (sha !== '') shaByPath.set(path, sha);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LAST_COMMIT_CONCURRENCY, queue.length) }, worker));
  const commits = await readCommits(gitDir, [...new Set(shaByPath.values())]);
  const bySha = new Map(commits.map((commit) => [commit.sha, commit]));
  const answer = new Map<string, Commit>();
  for (const [path, sha] of shaByPath) {
    const commit = bySha.get(sha);
    if (commit !== undefined) answer.set(path, commit);
  }
  return answer;
}

/** Every file (blob) of the tree at `commitSha`, recursively, with its size: one `git ls-tree -r` process. */
export async function listFiles(gitDir: string, commitSha: string): Promise<{ path: string; size: number }[]> {
  const { stdout } = await runGit(['ls-tree', '-r', '--long', '-z', '--full-tree', '--end-of-options', commitSha], { gitDir });
  const files: { path: string; size: number }[] = [];
  for (const record of stdout.toString('utf8').split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    // "<mode> SP <type> SP <sha> SP+ <size> TAB <path>"; submodules (commits) and symlinks hold no code.
    const [mode = '', type = '', , size = '-'] = record.slice(0, tab).split(/ +/);
    if (type !== 'blob' || mode === '120000' || size === '-') continue;
    files.push({ path: record.slice(tab + 1), size: Number(size) });
  }
  return files;
}
