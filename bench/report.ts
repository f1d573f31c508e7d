/** What a bench run produces: one result per scenario, and the JSON file written at the end. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Settings } from './args';
import type { Figure, HttpMethod, LatencyTargets, Targets, TimedTargets } from './scenarios/types';
import type { LatencyFigures, ServerFigures, TimedFigures } from './stats';
import type { LatencyVerdict, TimedVerdict, Verdict } from './targets';

export interface LoadHeader {
  kind: 'load';
  name: string;
  description: string;
  /** Method and path only: headers carry credentials. */
  request: { method: HttpMethod; path: string };
  targets: Targets;
}

export interface TimedHeader {
  kind: 'timed';
  name: string;
  description: string;
  /** The command timed, as the scenario prints it. */
  command: string;
  targets: TimedTargets;
}

export interface LatencyHeader {
  kind: 'latency';
  name: string;
  description: string;
  /** The event measured, as the scenario prints it. */
  event: string;
  targets: LatencyTargets;
}

export interface SingleHeader {
  kind: 'single';
  name: string;
  description: string;
  /** The work measured, as the scenario prints it. */
  work: string;
}

type Failed = { status: 'failed'; error: string };

export type LoadResult = LoadHeader & ({ status: 'measured'; cairn: ServerFigures; baseline: ServerFigures; verdict: Verdict } | Failed);
export type TimedResult = TimedHeader & ({ status: 'measured'; cairn: TimedFigures; baseline: TimedFigures; verdict: TimedVerdict } | Failed);
export type LatencyResult = LatencyHeader & ({ status: 'measured'; cairn: LatencyFigures; baseline: LatencyFigures; verdict: LatencyVerdict } | Failed);
/** No baseline, no target: the figures alone. */
export type SingleResult = SingleHeader & ({ status: 'measured'; figures: Figure[] } | Failed);
export type ScenarioResult = LoadResult | TimedResult | LatencyResult | SingleResult;

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  platform: string;
  release: string;
  arch: string;
  node: string;
  loadAverage: number[];
}

export interface BenchReport {
  date: string;
  machine: MachineInfo;
  settings: Omit<Settings, 'databaseUrl'> & { databaseServer: string };
  scenarios: ScenarioResult[];
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: os.platform(),
    release: os.release(),
    arch: os.arch(),
    node: process.version,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** The server part of a database URL, without credentials or database name. */
export function databaseServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'unparsable URL';
  }
}

export function buildReport(settings: Settings, machine: MachineInfo, scenarios: ScenarioResult[], date = new Date()): BenchReport {
  const { databaseUrl, ...rest } = settings;
  return { date: date.toISOString(), machine, settings: { ...rest, databaseServer: databaseServer(databaseUrl) }, scenarios };
}

export function writeReport(report: BenchReport, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
