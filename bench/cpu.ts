/**
 * CPU time a process has used, from Linux's /proc/<pid>/stat (user + system). On a small shared machine this is the
 * reliable way to say which process a piece of work kept busy: wall-clock sampling profilers attribute waiting too.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';

let ticksPerSecond: number | undefined;

/** USER_HZ (`getconf CLK_TCK`), 100 on every mainstream Linux. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of a /proc/<pid>/stat line, in clock ticks; the command name (field 2) may hold spaces and parentheses. */
export function statTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from field 3 (the state) here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unexpected /proc stat line: ${stat.slice(0, 80)}`);
  return utime + stime;
}

/** Seconds of CPU `pid` has used so far, or undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    return statTicks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) / clockTicks();
  } catch {
    return undefined;
  }
}
