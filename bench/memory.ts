/**
 * A Cairn process's resident memory, from Linux's /proc: its size now (VmRSS) and its high-water mark (VmHWM),
 * which writing `5` to /proc/<pid>/clear_refs resets to the current size — so a peak over a stretch of work is
 * read exactly, however briefly it lasted, without sampling.
 */
import * as fs from 'node:fs';

const KIB = 1024;
export const MIB = 1024 * KIB;

/** A `Vm…:  <n> kB` field of /proc/<pid>/status, in bytes. */
export function statusField(status: string, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (match === null) throw new Error(`no ${field} in /proc status`);
  return Number(match[1]) * KIB;
}

function status(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
}

export interface PeakWatch {
  /** The peak resident size since the watch started, and the size it started from, in bytes. */
  read(): { startBytes: number; peakBytes: number };
}

/** Starts watching `pid`'s peak resident size from now. */
export function watchPeak(pid: number): PeakWatch {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const startBytes = statusField(status(pid), 'VmRSS');
  return { read: () => ({ startBytes, peakBytes: statusField(status(pid), 'VmHWM') }) };
}
