/**
 * The hand-written Gitea-format dump (e2e/fixtures/gitea-dump) and the git/ bare repository its tests build beside
 * it with fixed identities and dates, so the commits' ids are the same on every run.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './instance';

export const GITEA_DUMP = path.join(ROOT, 'e2e', 'fixtures', 'gitea-dump');

/** Fixed identities and dates, so the commits' ids are the same on every run. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Carol',
  GIT_AUTHOR_EMAIL: 'carol@example.com',
  GIT_COMMITTER_NAME: 'Carol',
  GIT_COMMITTER_EMAIL: 'carol@example.com',
  GIT_AUTHOR_DATE: '2024-01-02T03:04:05Z',
  GIT_COMMITTER_DATE: '2024-01-02T03:04:05Z',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};

/** The fixture's git/: main (2 commits), fix (1 more), tag v1.0, refs/pull/2/head = fix, HEAD main. */
export function buildGitData(dumpDir: string, scratch: string): Record<string, string> {
  const work = path.join(scratch, 'work');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
  git(scratch, 'init', '--quiet', '--initial-branch=main', work);
  writeFileSync(path.join(work, 'README.md'), '# tools\n');
  git(work, 'add', 'README.md');
  git(work, 'commit', '--quiet', '-m', 'first');
  writeFileSync(path.join(work, 'tool.sh'), 'echo tools\n');
  git(work, 'add', 'tool.sh');
  git(work, 'commit', '--quiet', '-m', 'second');
  git(work, 'tag', 'v1.0');
  git(work, 'checkout', '--quiet', '-b', 'fix');
  writeFileSync(path.join(work, 'tool.sh'), 'echo fixed\n');
  git(work, 'commit', '--quiet', '-am', 'fix the crash');
  const bare = path.join(dumpDir, 'git');
  git(scratch, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(work, 'push', '--quiet', bare, 'main', 'fix', 'v1.0', 'fix:refs/pull/2/head');
  return { main: git(work, 'rev-parse', 'main'), fix: git(work, 'rev-parse', 'fix'), tag: git(work, 'rev-parse', 'v1.0^{commit}') };
}

/** The restore archives (restores/<id>) in the default local `[attachment]` object store under `workDir`. */
export function restoreObjectsIn(workDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'restores') found.push(...readdirSync(full));
        else walk(full);
      }
    }
  };
  walk(workDir);
  return found;
}
