/** Cairn against its baseline: the ratios and whether the scenario's targets are met. */
import type { LatencyTargets, Targets, TimedTargets } from './scenarios/types';

export interface Comparable {
  requestsPerSec: number;
  p99Ms: number;
}

export interface Verdict {
  /** Cairn's requests/s over the baseline's (higher is better). */
  throughputRatio: number;
  /** Cairn's p99 over the baseline's (lower is better). */
  p99Ratio: number;
  throughputMet: boolean;
  p99Met: boolean;
  met: boolean;
}

/** a / b, NaN when b is not a positive number (and NaN never meets a target). */
export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) && Number.isFinite(b) ? a / b : Number.NaN;
}

export function evaluate(cairn: Comparable, baseline: Comparable, targets: Targets): Verdict {
  const throughputRatio = ratio(cairn.requestsPerSec, baseline.requestsPerSec);
  const p99Ratio = ratio(cairn.p99Ms, baseline.p99Ms);
  const throughputMet = throughputRatio >= targets.minThroughputRatio;
  const p99Met = p99Ratio <= targets.maxP99Ratio;
  return { throughputRatio, p99Ratio, throughputMet, p99Met, met: throughputMet && p99Met };
}

/** What was missed, in words ("throughput 0.42× < 0.50×"); empty when every target is met. */
export function misses(verdict: Verdict, targets: Targets): string[] {
  const out: string[] = [];
  if (!verdict.throughputMet) out.push(`throughput ${formatRatio(verdict.throughputRatio)} < ${formatRatio(targets.minThroughputRatio)}`);
  if (!verdict.p99Met) out.push(`p99 ${formatRatio(verdict.p99Ratio)} > ${formatRatio(targets.maxP99Ratio)}`);
  return out;
}

/** A timed scenario's verdict. */
export interface TimedVerdict {
  /** Cairn's median time over the baseline's (lower is better). */
  timeRatio: number;
  timeMet: boolean;
  /** The watched service's peak memory growth in MiB, when the scenario bounds it. */
  rssGrowthMiB?: number;
  memoryMet: boolean;
  met: boolean;
}

export function evaluateTimed(cairn: { medianMs: number }, baseline: { medianMs: number }, targets: TimedTargets, rssGrowthMiB?: number): TimedVerdict {
  const timeRatio = ratio(cairn.medianMs, baseline.medianMs);
  const timeMet = timeRatio <= targets.maxTimeRatio;
  // A bound that was not measured is missed, never assumed.
  const memoryMet = targets.maxRssGrowthMiB === undefined || (rssGrowthMiB !== undefined && rssGrowthMiB <= targets.maxRssGrowthMiB);
  return { timeRatio, timeMet, ...(rssGrowthMiB === undefined ? {} : { rssGrowthMiB }), memoryMet, met: timeMet && memoryMet };
}

/** What was missed, in words ("time 1.23× > 1.10×", "memory +80.0 MiB > +64.0 MiB"); empty when every target is met. */
export function timedMisses(verdict: TimedVerdict, targets: TimedTargets): string[] {
  const out: string[] = [];
  if (!verdict.timeMet) out.push(`time ${formatRatio(verdict.timeRatio)} > ${formatRatio(targets.maxTimeRatio)}`);
  if (!verdict.memoryMet && targets.maxRssGrowthMiB !== undefined) out.push(`memory ${formatMiB(verdict.rssGrowthMiB)} > ${formatMiB(targets.maxRssGrowthMiB)}`);
  return out;
}

/** A latency scenario's verdict. */
export interface LatencyVerdict {
  /** Cairn's p99 latency over the baseline's (lower is better). */
  p99Ratio: number;
  p99Met: boolean;
  met: boolean;
}

export function evaluateLatency(cairn: { p99Ms: number }, baseline: { p99Ms: number }, targets: LatencyTargets): LatencyVerdict {
  const p99Ratio = ratio(cairn.p99Ms, baseline.p99Ms);
  const p99Met = p99Ratio <= targets.maxP99Ratio;
  return { p99Ratio, p99Met, met: p99Met };
}

/** What was missed, in words ("p99 3.20× > 3.00×"); empty when the target is met. */
export function latencyMisses(verdict: LatencyVerdict, targets: LatencyTargets): string[] {
  return verdict.p99Met ? [] : [`p99 ${formatRatio(verdict.p99Ratio)} > ${formatRatio(targets.maxP99Ratio)}`];
}

export function formatMiB(value: number | undefined): string {
  return value !== undefined && Number.isFinite(value) ? `+${value.toFixed(1)} MiB` : 'n/a';
}

export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}
