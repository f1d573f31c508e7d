/**
 * A PostgreSQL server outlives a supervisor killed with SIGKILL, and a new server on the same data
 * directory then refuses to start. `postmaster.pid` tells which process holds the directory; if that
 * process really is a postgres serving this directory, it is stopped (fast shutdown first) before the
 * next start. A pid file whose process is gone, or is something else now, is removed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '@cairn/log';
import { readFileIfExists } from './files';
import { isProcessAlive, processCommandLine, terminateProcess } from './processes';

export interface PostmasterPidFile {
  pid: number;
  dataDir: string;
  port: number | undefined;
}

/** postmaster.pid: line 1 pid, line 2 data directory, line 3 start time, line 4 port, … */
export function parsePostmasterPid(text: string): PostmasterPidFile | undefined {
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const port = Number.parseInt(lines[3] ?? '', 10);
  return { pid, dataDir: (lines[1] ?? '').trim(), port: Number.isInteger(port) ? port : undefined };
}

/** Whether an argument vector is a postgres server started on `dataDir` (`…/postgres -D <dataDir> …`). */
export function isPostmasterCommand(argv: string[], dataDir: string): boolean {
  const program = argv[0];
  if (program === undefined || path.basename(program) !== 'postgres') return false;
  const flag = argv.indexOf('-D');
  const dir = flag >= 0 ? argv[flag + 1] : undefined;
  return dir !== undefined && path.resolve(dir) === path.resolve(dataDir);
}

export function postmasterPidPath(dataDir: string): string {
  return path.join(dataDir, 'postmaster.pid');
}

/** The server's pid file; undefined when there is none (no server running). A file that cannot be read throws. */
export function readPostmasterPid(dataDir: string): PostmasterPidFile | undefined {
  const text = readFileIfExists(postmasterPidPath(dataDir));
  return text === undefined ? undefined : parsePostmasterPid(text);
}

/** Whether `pid` is a live postgres server for `dataDir` (never guess: an unrelated process must not be signalled). */
function isLivePostmaster(pid: number, dataDir: string): boolean {
  if (!isProcessAlive(pid)) return false;
  const argv = processCommandLine(pid);
  return argv !== undefined && isPostmasterCommand(argv, dataDir);
}

/** Stops a server left running on `dataDir` by a previous run, and clears a stale pid file. */
export async function stopStalePostmaster(dataDir: string, logger: Logger): Promise<void> {
  const pidFile = readPostmasterPid(dataDir);
  if (pidFile === undefined) return;
  if (path.resolve(pidFile.dataDir) === path.resolve(dataDir) && isLivePostmaster(pidFile.pid, dataDir)) {
    logger.warn({ postmaster_pid: pidFile.pid, data_dir: dataDir }, 'stopping the PostgreSQL server left running by a previous run');
    // SIGINT is PostgreSQL's fast shutdown (a checkpoint, nothing committed is lost); SIGQUIT is immediate
    // shutdown (crash recovery on next start); SIGKILL only if both are ignored.
    const stopped = await terminateProcess(pidFile.pid, [
      ['SIGINT', 15_000],
      ['SIGQUIT', 5_000],
      ['SIGKILL', 5_000],
    ]);
    if (!stopped) {
      throw new Error(`a PostgreSQL server (pid ${pidFile.pid}) still holds ${dataDir} and does not stop; stop it and start again`);
    }
  }
  // The server removes its pid file on a clean shutdown; after a kill it stays behind, naming a pid
  // that may now belong to an unrelated process, which would make the next server refuse to start.
  fs.rmSync(postmasterPidPath(dataDir), { force: true });
}
