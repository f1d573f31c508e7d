/** What GetRepositoryInfo answers about a repository on disk. */
import { runGit } from './command';
import { BRANCH_PREFIX } from './refs';
import { headBranch } from './revisions';

export interface RepositoryInfo {
  branchCount: number;
  /** Loose objects plus packs, in KiB (`git count-objects -v`: size + size-pack). */
  sizeKib: number;
  /** The branch HEAD names ('' when HEAD is detached). */
  headBranch: string;
}

/** `key: value` lines of `git count-objects -v` → numbers. */
export function parseCountObjects(output: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of output.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) values.set(line.slice(0, colon).trim(), Number(line.slice(colon + 1).trim()));
  }
  return values;
}

export async function repositoryInfo(gitDir: string): Promise<RepositoryInfo> {
  const [branches, objects, head] = await Promise.all([
    runGit(['for-each-ref', '--format=%(refname)', BRANCH_PREFIX], { gitDir }),
    runGit(['count-objects', '-v'], { gitDir }),
    headBranch(gitDir),
  ]);
  const counts = parseCountObjects(objects.stdout.toString('utf8'));
  return {
    branchCount: branches.stdout.toString('utf8').split('\n').filter((line) => line !== '').length,
    sizeKib: (counts.get('size') ?? 0) + (counts.get('size-pack') ?? 0),
    headBranch: head,
  };
}
