/** The text printed after a run: a small table per scenario and a one-line summary. */
import type { LatencyResult, LoadResult, ScenarioResult, SingleResult, TimedResult } from './report';
import type { LatencyFigures, TimedFigures } from './stats';
import { formatMiB, formatRatio, latencyMisses, misses, timedMisses } from './targets';

export type Align = 'left' | 'right';

/** Columns padded to their widest cell, two spaces apart; trailing spaces trimmed. */
export function formatTable(rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => ((align[i] ?? 'left') === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function formatRate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toString() : 'n/a';
}

function formatMs(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : 'n/a';
}

const verdictCell = (met: boolean): string => (met ? 'ok' : 'MISSED');

const indent = (table: string): string => table.replace(/^/gm, '  ');

function formatLoad(result: LoadResult): string {
  const title = `${result.name}: ${result.request.method} ${result.request.path} — ${result.description}`;
  if (result.status === 'failed') return `${title}\n  FAILED: ${result.error}`;
  const { cairn, baseline, verdict, targets } = result;
  const rows = [
    ['', 'req/s', 'p50 ms', 'p99 ms'],
    ['cairn', formatRate(cairn.requestsPerSec), formatMs(cairn.p50Ms), formatMs(cairn.p99Ms)],
    ['baseline', formatRate(baseline.requestsPerSec), formatMs(baseline.p50Ms), formatMs(baseline.p99Ms)],
    ['cairn/baseline', formatRatio(verdict.throughputRatio), '', formatRatio(verdict.p99Ratio)],
    ['target', `≥ ${formatRatio(targets.minThroughputRatio)}`, '', `≤ ${formatRatio(targets.maxP99Ratio)}`],
    ['result', verdictCell(verdict.throughputMet), '', verdictCell(verdict.p99Met)],
  ];
  return `${title}\n${indent(formatTable(rows, ['left', 'right', 'right', 'right']))}`;
}

function formatTimed(result: TimedResult): string {
  const title = `${result.name}: ${result.command} — ${result.description}`;
  if (result.status === 'failed') return `${title}\n  FAILED: ${result.error}`;
  const { cairn, baseline, verdict, targets } = result;
  const times = (figures: TimedFigures): string[] => [figures.medianMs, figures.p90Ms, figures.minMs, figures.maxMs].map(formatMs);
  const rows = [
    ['', 'median ms', 'p90 ms', 'min ms', 'max ms'],
    ['cairn', ...times(cairn)],
    ['baseline', ...times(baseline)],
    ['cairn/baseline', formatRatio(verdict.timeRatio)],
    ['target', `≤ ${formatRatio(targets.maxTimeRatio)}`],
    ['result', verdictCell(verdict.timeMet)],
  ];
  if (targets.maxRssGrowthMiB !== undefined) {
    rows.push(['memory growth', formatMiB(verdict.rssGrowthMiB)], ['target', `≤ ${formatMiB(targets.maxRssGrowthMiB)}`], ['result', verdictCell(verdict.memoryMet)]);
  }
  return `${title}\n${indent(formatTable(rows, ['left', 'right', 'right', 'right', 'right']))}`;
}

function formatLatency(result: LatencyResult): string {
  const title = `${result.name}: ${result.event} — ${result.description}`;
  if (result.status === 'failed') return `${title}\n  FAILED: ${result.error}`;
  const { cairn, baseline, verdict, targets } = result;
  const latencies = (figures: LatencyFigures): string[] => [String(figures.events), ...[figures.p50Ms, figures.p90Ms, figures.p99Ms, figures.maxMs].map(formatMs)];
  const rows = [
    ['', 'events', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
    ['cairn', ...latencies(cairn)],
    ['baseline', ...latencies(baseline)],
    ['cairn/baseline', '', '', '', formatRatio(verdict.p99Ratio)],
    ['target', '', '', '', `≤ ${formatRatio(targets.maxP99Ratio)}`],
    ['result', '', '', '', verdictCell(verdict.p99Met)],
  ];
  return `${title}\n${indent(formatTable(rows, ['left', 'right', 'right', 'right', 'right', 'right']))}`;
}

/** Figures by group, each value with as many decimals as its size needs. */
function formatSingle(result: SingleResult): string {
  const title = `${result.name}: ${result.work} — ${result.description}`;
  if (result.status === 'failed') return `${title}\n  FAILED: ${result.error}`;
  const value = (n: number): string => (!Number.isFinite(n) ? 'n/a' : Number.isInteger(n) ? String(n) : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  const rows: string[][] = [];
  let group: string | undefined;
  for (const figure of result.figures) {
    rows.push([figure.group === group ? '' : figure.group, figure.name, value(figure.value), figure.unit]);
    group = figure.group;
  }
  return `${title}\n${indent(formatTable(rows, ['left', 'left', 'right', 'left']))}`;
}

export function formatScenario(result: ScenarioResult): string {
  switch (result.kind) {
    case 'load':
      return formatLoad(result);
    case 'timed':
      return formatTimed(result);
    case 'latency':
      return formatLatency(result);
    case 'single':
      return formatSingle(result);
  }
}

function missesOf(result: ScenarioResult & { status: 'measured' }): string[] {
  switch (result.kind) {
    case 'load':
      return misses(result.verdict, result.targets);
    case 'timed':
      return timedMisses(result.verdict, result.targets);
    case 'latency':
      return latencyMisses(result.verdict, result.targets);
    case 'single':
      return [];
  }
}

/** One line: all met, or what was missed and what failed. */
export function formatSummary(results: readonly ScenarioResult[]): string {
  const problems: string[] = [];
  for (const result of results) {
    if (result.status === 'failed') problems.push(`${result.name} FAILED`);
    else {
      const missed = missesOf(result);
      if (missed.length > 0) problems.push(`${result.name} MISSED (${missed.join(', ')})`);
    }
  }
  if (results.length === 0) return 'no scenario ran';
  return problems.length === 0 ? `all targets met (${results.length} scenario${results.length === 1 ? '' : 's'})` : problems.join('; ');
}
