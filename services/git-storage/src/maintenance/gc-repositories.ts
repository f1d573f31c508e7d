/**
 * `[cron.git_gc_repos]` (Gitea's GitGcRepos, services/repository/check.go): every SCHEDULE, `git gc` runs over
 * every repository on this node, one repository at a time, so the node keeps its transfer slots for clients.
 *
 * Why it matters beyond disk space: objects nothing reaches any more (a commit force-pushed away) are only deleted
 * by gc. They are kept while the reflog names them (`gc.reflogExpireUnreachable`, 30 days) and then for
 * `gc.pruneExpire` (2 weeks) after they were written, so the first gc after that removes them.
 *
 * gc never prunes objects younger than `gc.pruneExpire`, so it cannot delete what a push just added; still a push
 * and gc never run on one repository at once (git/push-gc-exclusion.ts: the quarantine migration races gc's removal
 * of emptied object directories). Two gcs on one repository are kept apart by git's gc.pid lock.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { runGit } from '../git/command';
import type { PushGcExclusion } from '../git/push-gc-exclusion';

/** Explicit, so a repository copied in with other settings cannot turn pruning off or make it immediate. */
const GC_CONFIG = ['-c', 'gc.pruneExpire=2.weeks.ago', '-c', 'gc.reflogExpireUnreachable=30.days.ago'];

export interface GitGcOptions {
  /** `$CAIRN_WORK_DIR/repositories`. */
  root: string;
  logger: Logger;
  schedule: CairnConfig['cron']['gitGcRepos'];
  /** `[git] GC_ARGS`, given before the task's own ARGS. */
  gcArgs: readonly string[];
  /** `[git.timeout] GC`: wall-clock limit of gc on one repository. */
  gcTimeoutMs: number;
  pushGc: PushGcExclusion;
}

export interface GitGcTask {
  stop(): Promise<void>;
}

async function directories(dir: string): Promise<Dirent[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory());
  } catch (error) {
    // A directory removed meanwhile (a deleted repository) has nothing left to collect; any other failure is one.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Every bare repository under `root` (`<storage>/<ab>/<cd>/<id>.git`, storage/layout.ts). */
async function* repositories(root: string): AsyncGenerator<string> {
  for (const storage of await directories(root)) {
    for (const first of await directories(path.join(root, storage.name))) {
      for (const second of await directories(path.join(root, storage.name, first.name))) {
        const dir = path.join(root, storage.name, first.name, second.name);
        for (const repo of await directories(dir)) if (repo.name.endsWith('.git')) yield path.join(dir, repo.name);
      }
    }
  }
}

/** Starts the periodic gc; nothing runs when the task is disabled. */
export function startGitGc(options: GitGcOptions): GitGcTask {
  const { schedule, logger } = options;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const sweep = async () => {
    const started = Date.now();
    const signal = schedule.timeout > 0 ? AbortSignal.any([stopping.signal, AbortSignal.timeout(schedule.timeout)]) : stopping.signal;
    const outcomes = { collected: 0, skipped: 0, stopped_by_push: 0 };
    let failed = 0;
    for await (const gitDir of repositories(options.root)) {
      if (signal.aborted) break;
      try {
        const outcome = await options.pushGc.gc(gitDir, signal, (gcSignal) =>
          runGit([...GC_CONFIG, 'gc', '--quiet', ...options.gcArgs, ...schedule.args], { gitDir, signal: gcSignal, timeoutMs: options.gcTimeoutMs }),
        );
        outcomes[outcome]++;
      } catch (error) {
        if (signal.aborted) break;
        failed++;
        logger.warn({ err: error, git_dir: gitDir }, 'git gc failed');
      }
    }
    const line = { task: 'git_gc_repos', ...outcomes, failed, duration_ms: Date.now() - started, stopped_early: signal.aborted && !stopping.signal.aborted };
    logger.info(line, 'git gc over the repositories done');
  };

  const run = () => {
    running = sweep().finally(() => {
      running = undefined;
      if (!stopping.signal.aborted) timer = setTimeout(run, schedule.every);
    });
  };

  if (schedule.enabled) {
    if (schedule.runAtStart) run();
    else timer = setTimeout(run, schedule.every);
  }
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
