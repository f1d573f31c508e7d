/**
 * History through the git CLI (isomorphic-git is ~30× slower for logs): `rev-list` pages and counts, one
 * `cat-file --batch` reads the page's commits, one `diff-tree --stdin` computes their stats.
 */
import type { ChangedFile, Commit } from '@cairn/proto/cairn/git/v1/git_service';
import { CairnError } from '@cairn/rpc';
import { parseCommit } from '../domain/git-objects';
import { parseDiffTree } from '../domain/diff-tree';
import { runGit } from './command';
import { readObjects } from './objects';

/** Paths after `--` are literal (no `:(glob)` magic or wildcards from users). */
export const LITERAL_PATHS = { GIT_LITERAL_PATHSPECS: '1' };

export interface HistoryFilter {
  /** The commit the walk starts from (a resolved sha). */
  tip: string;
  /** Only commits touching this path (normalized); empty for all. */
  path: string;
  since?: Date;
  until?: Date;
}

function filterArgs(filter: HistoryFilter): string[] {
  const args: string[] = [];
  // --max-age/--min-age are what --since/--until become, in seconds (committer time, inclusive).
  if (filter.since !== undefined) args.push(`--max-age=${Math.ceil(filter.since.getTime() / 1000)}`);
  if (filter.until !== undefined) args.push(`--min-age=${Math.floor(filter.until.getTime() / 1000)}`);
  args.push('--end-of-options', filter.tip, '--');
  if (filter.path !== '') args.push(filter.path);
  return args;
}

/** The shas of one page of history, newest first (git log's order). */
export async function listCommitShas(gitDir: string, filter: HistoryFilter, skip: number, limit: number): Promise<string[]> {
  const paging = [`--skip=${skip}`, ...(limit > 0 ? [`--max-count=${limit}`] : [])];
  const { stdout } = await runGit(['rev-list', ...paging, ...filterArgs(filter)], { gitDir, env: LITERAL_PATHS });
  return stdout.toString('utf8').split('\n').filter((line) => line !== '');
}

/** How many commits the filter selects. */
export async function countCommits(gitDir: string, filter: HistoryFilter): Promise<number> {
  const { stdout } = await runGit(['rev-list', '--count', ...filterArgs(filter)], { gitDir, env: LITERAL_PATHS });
  return Number(stdout.toString('utf8').trim());
}

/** The commits `shas` name, in that order (shas git just listed, so all exist). */
export async function readCommits(gitDir: string, shas: readonly string[]): Promise<Commit[]> {
  const objects = await readObjects(gitDir, shas);
  return shas.map((sha) => {
    const object = objects.get(sha);
    if (object === undefined || object.type !== 'commit') throw CairnError.internal(`commit ${sha} is missing`);
    return parseCommit(object.sha, object.data);
  });
}

/**
 * Fills each commit's additions, deletions and files: its diff against its first parent (against the empty tree
 * for root commits), renames detected, in one `git diff-tree --stdin` for all of them.
 */
export async function addStats(gitDir: string, commits: Commit[]): Promise<void> {
  if (commits.length === 0) return;
  // "<commit> <first parent>" compares the two; a lone root commit is compared with nothing (--root).
  const input = commits.map((commit) => [commit.sha, ...commit.parentShas.slice(0, 1)].join(' ') + '\n').join('');
  const { stdout } = await runGit(['diff-tree', '--stdin', '-z', '-r', '-M', '--raw', '--numstat', '--root'], { gitDir, stdin: input });
  const files = parseDiffTree(stdout);
  for (const commit of commits) {
    const changed: ChangedFile[] = files.get(commit.sha) ?? [];
    commit.files = changed;
    commit.additions = changed.reduce((sum, file) => sum + file.additions, 0);
    commit.deletions = changed.reduce((sum, file) => sum + file.deletions, 0);
  }
}
