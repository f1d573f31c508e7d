/**
 * `git clone` of a repository with a long history over smart HTTP, anonymous (the repository is public): the
 * gateway's smart HTTP routes (repos' access decision, streaming over gRPC) and git-storage's `git upload-pack`,
 * against git's own `git http-backend` run as CGI behind a bare `node:http` server, serving the same history.
 * Both repositories received it the same way — one push from the same generated repository — so they hold
 * the same pack.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { basicAuth, httpRequest } from '../cairn';
import { git } from '../git';
import { HISTORY_BRANCH, createHistoryRepository, type HistoryShape } from '../git-history';
import type { BenchContext, RunningBaseline, Side, TimedScenario, TimedSubjects } from './types';

const REPOSITORY = 'history';

/** Every clone, either side: protocol v2 named (git 2.39's default anyway), nothing printed. */
const cloneArgs = (url: string, target: string): string[] => ['-c', 'protocol.version=2', 'clone', '--bare', '--quiet', url, target];

async function createCairnRepository(context: BenchContext, owner: { username: string; password: string }): Promise<void> {
  const created = await httpRequest(`${context.cairnUrl}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: basicAuth(owner.username, owner.password), 'content-type': 'application/json' },
    body: JSON.stringify({ name: REPOSITORY, private: false, auto_init: false, default_branch: HISTORY_BRANCH }),
  });
  if (created.status !== 201) throw new Error(`creating ${owner.username}/${REPOSITORY} answered ${created.status}: ${created.body}`);
}

function withCredentials(url: string, username: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = username;
  parsed.password = password;
  return parsed.toString();
}

async function prepare(shape: HistoryShape, context: BenchContext, signal: AbortSignal): Promise<TimedSubjects> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-git-'));
  let baseline: RunningBaseline | undefined;
  const stop = async (): Promise<void> => {
    await baseline?.stop();
    fs.rmSync(temp, { recursive: true, force: true });
  };
  try {
    const owner = await context.benchUser();
    await createCairnRepository(context, owner);
    const source = path.join(temp, 'source.git');
    await createHistoryRepository(source, shape, signal);

    const repoPath = `/${owner.username}/${REPOSITORY}.git`;
    const pushRef = `refs/heads/${HISTORY_BRANCH}`;
    await git(['push', '--quiet', withCredentials(`${context.cairnUrl}${repoPath}`, owner.username, owner.password), pushRef], { gitDir: source, signal });
    const projectRoot = path.join(temp, 'baseline');
    const baselineRepo = path.join(projectRoot, repoPath);
    await git(['init', '--bare', '--quiet', `--initial-branch=${HISTORY_BRANCH}`, baselineRepo], { signal });
    await git(['push', '--quiet', baselineRepo, pushRef], { gitDir: source, signal });
    fs.rmSync(source, { recursive: true, force: true });

    baseline = await context.startBaseline('git-http-backend', { BENCH_GIT_PROJECT_ROOT: projectRoot });
    const urls: Record<Side, string> = { cairn: `${context.cairnUrl}${repoPath}`, baseline: `${baseline.url}${repoPath}` };
    return {
      run: async (side, workDir, runSignal) => {
        await git(cloneArgs(urls[side], path.join(workDir, 'clone.git')), { signal: runSignal });
      },
      check: async (checkSignal) => {
        const cairn = await git(['-c', 'protocol.version=2', 'ls-remote', urls.cairn], { signal: checkSignal });
        const base = await git(['-c', 'protocol.version=2', 'ls-remote', urls.baseline], { signal: checkSignal });
        if (!cairn.includes(`\t${pushRef}\n`)) throw new Error(`Cairn's ${repoPath} has no ${pushRef}:\n${cairn}`);
        if (cairn !== base) throw new Error(`the two repositories differ (git ls-remote):\n  cairn:\n${cairn}  baseline:\n${base}`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The scenario for a history of `shape`. */
export function createGitCloneScenario(shape: HistoryShape): TimedScenario {
  return {
    kind: 'timed',
    name: 'git-clone',
    description: `${shape.commits} commits, public, protocol v2; baseline: git http-backend as CGI behind node:http`,
    command: `git ${cloneArgs('<url>', '<new dir>').join(' ')}`,
    prepare: (context, signal) => prepare(shape, context, signal),
    targets: { maxTimeRatio: 1.1 },
  };
}

/** The repository "with thousands of commits": 5,000, each changing a line in 3 of 40 files. */
export const gitCloneScenario = createGitCloneScenario({ commits: 5000, files: 40, filesPerCommit: 3, lines: 60 });
