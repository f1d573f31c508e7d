/** The timed and latency scenarios' part of the runner, with scenarios that only record what they are asked to do. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs, type Settings } from './args';
import { MIB } from './memory';
import { LATENCY_WARMUP_EVENTS, measureLatency, measureTimed, roundOrder } from './runner';
import type { BenchContext, LatencyScenario, Side, TimedScenario } from './scenarios/types';

function settings(argv: string[]): Settings {
  const parsed = parseArgs(argv, {}, []);
  if (parsed.kind !== 'run') throw new Error('expected settings');
  return parsed.settings;
}

const context = {} as BenchContext; // the recording scenario never looks at it

interface Recording {
  events: string[];
  workDirs: string[];
  stopped: number;
}

function recordingScenario(options: { failRun?: { side: Side; call: number }; failCheck?: boolean } = {}): { scenario: TimedScenario; recording: Recording } {
  const recording: Recording = { events: [], workDirs: [], stopped: 0 };
  const calls: Record<Side, number> = { baseline: 0, cairn: 0 };
  const scenario: TimedScenario = {
    kind: 'timed',
    name: 'recorded',
    description: 'records its calls',
    command: 'true',
    targets: { maxTimeRatio: 1.1 },
    prepare: async () => ({
      check: async () => {
        recording.events.push('check');
        if (options.failCheck) throw new Error('the sides differ');
      },
      run: async (side, workDir) => {
        calls[side]++;
        recording.events.push(side);
        // A fresh, empty directory every time, which the run may fill.
        expect(fs.readdirSync(workDir)).toEqual([]);
        expect(recording.workDirs).not.toContain(workDir);
        recording.workDirs.push(workDir);
        fs.writeFileSync(path.join(workDir, 'clone'), side);
        if (options.failRun?.side === side && options.failRun.call === calls[side]) throw new Error('boom');
      },
      stop: async () => void recording.stopped++,
    }),
  };
  return { scenario, recording };
}

const signal = new AbortController().signal;
const quiet = (): void => undefined;

describe('roundOrder', () => {
  it('alternates ABBA', () => {
    expect([0, 1, 2, 3].map(roundOrder)).toEqual([
      ['baseline', 'cairn'],
      ['cairn', 'baseline'],
      ['baseline', 'cairn'],
      ['cairn', 'baseline'],
    ]);
  });
});

describe('measureTimed', () => {
  it('checks once, warms each side up, then times the rounds in ABBA order, each run in its own directory', async () => {
    const { scenario, recording } = recordingScenario();
    const said: string[] = [];
    const result = await measureTimed(scenario, context, settings(['--timed-rounds', '3']), signal, (line) => said.push(line));
    expect(recording.events).toEqual(['check', 'baseline', 'cairn', 'baseline', 'cairn', 'cairn', 'baseline', 'baseline', 'cairn']);
    for (const dir of recording.workDirs) expect(fs.existsSync(dir)).toBe(false);
    expect(recording.stopped).toBe(1);
    expect(said).toHaveLength(9);
    expect(said[0]).toBe('recorded: preparing');
    expect(said[1]).toMatch(/^recorded: warm-up baseline: \d+ ms$/);
    expect(said[8]).toMatch(/^recorded: run 3\/3 cairn: \d+ ms$/);

    if (result.status !== 'measured') throw new Error(`expected figures, got ${JSON.stringify(result)}`);
    expect(result).toMatchObject({ kind: 'timed', name: 'recorded', command: 'true', targets: { maxTimeRatio: 1.1 } });
    // Warm-up runs are not counted.
    expect(result.cairn.runsMs).toHaveLength(3);
    expect(result.baseline.runsMs).toHaveLength(3);
    expect(result.verdict.timeRatio).toBeCloseTo(result.cairn.medianMs / result.baseline.medianMs);
  });

  it('skips the warm-up with --warmup 0', async () => {
    const { scenario, recording } = recordingScenario();
    await measureTimed(scenario, context, settings(['--timed-rounds', '2', '--warmup', '0']), signal, quiet);
    expect(recording.events).toEqual(['check', 'baseline', 'cairn', 'cairn', 'baseline']);
  });

  it('stops everything and names the run when a run fails', async () => {
    const { scenario, recording } = recordingScenario({ failRun: { side: 'cairn', call: 3 } });
    await expect(measureTimed(scenario, context, settings(['--timed-rounds', '3']), signal, quiet)).rejects.toThrow('cairn during run 2/3: boom');
    expect(recording.stopped).toBe(1);
    for (const dir of recording.workDirs) expect(fs.existsSync(dir)).toBe(false);
  });

  it('runs nothing when the sides differ', async () => {
    const { scenario, recording } = recordingScenario({ failCheck: true });
    await expect(measureTimed(scenario, context, settings([]), signal, quiet)).rejects.toThrow('the sides differ');
    expect(recording.events).toEqual(['check']);
    expect(recording.stopped).toBe(1);
  });

  it("bounds the watched service's peak memory from before the warm-up, however briefly it peaked", async () => {
    const { scenario } = recordingScenario();
    const watched: TimedScenario = {
      ...scenario,
      memoryOf: 'gateway',
      targets: { maxTimeRatio: 1000, maxRssGrowthMiB: 16 },
      prepare: async (...args) => {
        const subjects = await scenario.prepare(...args);
        return {
          ...subjects,
          run: async (side, workDir, runSignal) => {
            await subjects.run(side, workDir, runSignal);
            // 64 MiB (above glibc's largest mmap threshold, so fresh pages) touched and dropped at once: only the
            // high-water mark still shows it afterwards.
            if (side === 'cairn') expect(Buffer.alloc(64 * MIB, 1).length).toBe(64 * MIB);
          },
        };
      },
    };
    const asked: string[] = [];
    const watching = { servicePid: (name: string) => (asked.push(name), process.pid) } as BenchContext;
    const result = await measureTimed(watched, watching, settings(['--timed-rounds', '1', '--warmup', '0']), signal, quiet);
    expect(asked).toEqual(['gateway']);
    if (result.status !== 'measured') throw new Error(`expected figures, got ${JSON.stringify(result)}`);
    expect(result.verdict.rssGrowthMiB).toBeGreaterThan(56);
    expect(result.verdict).toMatchObject({ memoryMet: false, met: false });
  });

  it('stops between runs when interrupted', async () => {
    const { scenario, recording } = recordingScenario();
    const abort = new AbortController();
    abort.abort(new Error('interrupted by SIGINT'));
    await expect(measureTimed(scenario, context, settings([]), abort.signal, quiet)).rejects.toThrow('interrupted by SIGINT');
    expect(recording.events).toEqual(['check']);
    expect(recording.stopped).toBe(1);
  });
});

/** A latency scenario whose events take `latencyMs(side, n)` (n counts that side's events from 1, check excluded). */
function recordingLatency(latencyMs: (side: Side, n: number) => number, failAt?: { side: Side; call: number }): { scenario: LatencyScenario; recording: Recording } {
  const recording: Recording = { events: [], workDirs: [], stopped: 0 };
  const calls: Record<Side, number> = { baseline: 0, cairn: 0 };
  const scenario: LatencyScenario = {
    kind: 'latency',
    name: 'relayed',
    description: 'records its events',
    event: 'an event',
    targets: { maxP99Ratio: 3 },
    prepare: async () => ({
      check: async () => void recording.events.push('check'),
      event: async (side) => {
        calls[side]++;
        recording.events.push(side);
        if (failAt?.side === side && failAt.call === calls[side]) throw new Error('no delivery');
        return latencyMs(side, calls[side]);
      },
      stop: async () => void recording.stopped++,
    }),
  };
  return { scenario, recording };
}

/** The events as runs of one side: ['baseline×20', 'cairn×20', …]. */
function runsOf(events: readonly string[]): string[] {
  const out: Array<{ what: string; count: number }> = [];
  for (const what of events) {
    const last = out[out.length - 1];
    if (last?.what === what) last.count++;
    else out.push({ what, count: 1 });
  }
  return out.map(({ what, count }) => (count === 1 ? what : `${what}×${count}`));
}

describe('measureLatency', () => {
  it('checks once, warms each side up, then sends the events one side at a time in ABBA rounds', async () => {
    // Cairn 3× slower on every event; the warm-up events are far slower and must not count.
    const { scenario, recording } = recordingLatency((side, n) => (n <= LATENCY_WARMUP_EVENTS ? 1000 : n) * (side === 'cairn' ? 3 : 1));
    const said: string[] = [];
    const result = await measureLatency(scenario, context, settings(['--events', '7', '--rounds', '3']), signal, (line) => said.push(line));
    const w = LATENCY_WARMUP_EVENTS;
    // Rounds of 3, 2 and 2 events per side, in the order baseline cairn | cairn baseline | baseline cairn.
    expect(runsOf(recording.events)).toEqual(['check', `baseline×${w}`, `cairn×${w}`, 'baseline×3', 'cairn×5', 'baseline×4', 'cairn×2']);
    expect(recording.stopped).toBe(1);
    expect(said[0]).toBe('relayed: preparing');
    expect(said[1]).toMatch(new RegExp(`^relayed: warm-up baseline: ${w} events, p50 \\d+\\.\\d\\d ms, max \\d+\\.\\d\\d ms$`));
    expect(said[said.length - 1]).toMatch(/^relayed: run 3\/3 cairn: 2 events/);

    if (result.status !== 'measured') throw new Error(`expected figures, got ${JSON.stringify(result)}`);
    expect(result).toMatchObject({ kind: 'latency', name: 'relayed', event: 'an event', targets: { maxP99Ratio: 3 } });
    expect(result.baseline).toMatchObject({ events: 7, p50Ms: w + 4, p99Ms: w + 7, maxMs: w + 7 });
    expect(result.cairn).toMatchObject({ events: 7, p99Ms: 3 * (w + 7) });
    expect(result.verdict).toMatchObject({ p99Met: true, met: true });
    expect(result.verdict.p99Ratio).toBeCloseTo(3);
  });

  it('skips the warm-up with --warmup 0, and misses a p99 over the target', async () => {
    const { scenario, recording } = recordingLatency((side) => (side === 'cairn' ? 31 : 10));
    const result = await measureLatency(scenario, context, settings(['--events', '4', '--warmup', '0']), signal, quiet);
    expect(runsOf(recording.events)).toEqual(['check', 'baseline×2', 'cairn×4', 'baseline×2']);
    if (result.status !== 'measured') throw new Error(`expected figures, got ${JSON.stringify(result)}`);
    expect(result.verdict).toMatchObject({ p99Met: false, met: false });
  });

  it('stops everything and names the event when one is not delivered', async () => {
    const { scenario, recording } = recordingLatency(() => 1, { side: 'cairn', call: 3 });
    await expect(measureLatency(scenario, context, settings(['--events', '4', '--warmup', '0']), signal, quiet)).rejects.toThrow(
      'cairn during run 2/2, event 1/2: no delivery',
    );
    expect(recording.stopped).toBe(1);
  });

  it('stops between events when interrupted', async () => {
    const { scenario, recording } = recordingLatency(() => 1);
    const abort = new AbortController();
    abort.abort(new Error('interrupted by SIGINT'));
    await expect(measureLatency(scenario, context, settings([]), abort.signal, quiet)).rejects.toThrow('interrupted by SIGINT');
    expect(recording.events).toEqual(['check']);
    expect(recording.stopped).toBe(1);
  });
});
