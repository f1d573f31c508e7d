import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, UsageError, parseArgs, type Settings } from './args';

const NAMES = ['version', 'user', 'git-clone'];

function settings(argv: string[], env: NodeJS.ProcessEnv = {}): Settings {
  const parsed = parseArgs(argv, env, NAMES);
  if (parsed.kind !== 'run') throw new Error('expected settings');
  return parsed.settings;
}

describe('parseArgs', () => {
  it('has the documented defaults', () => {
    expect(settings([])).toEqual({
      durationSec: 10,
      warmupSec: 2,
      rounds: 2,
      timedRounds: 7,
      events: 200,
      connections: 32,
      pipelining: 1,
      issues: 10_000,
      only: [],
      strict: false,
      profile: false,
      databaseUrl: DEFAULT_DATABASE_URL,
      natsUrl: DEFAULT_NATS_URL,
    });
  });

  it('reads options in both forms', () => {
    expect(settings(['--duration', '3.5', '--warmup=0', '--rounds', '4', '--timed-rounds=9', '--events=50', '--connections=8', '--pipelining', '2', '--strict', '--profile'])).toMatchObject({
      durationSec: 3.5,
      warmupSec: 0,
      rounds: 4,
      timedRounds: 9,
      events: 50,
      connections: 8,
      pipelining: 2,
      strict: true,
      profile: true,
    });
  });

  it('takes the environment, and options over it', () => {
    const env = {
      CAIRN_BENCH_DURATION: '4',
      CAIRN_BENCH_CONNECTIONS: '16',
      CAIRN_BENCH_TIMED_ROUNDS: '5',
      CAIRN_BENCH_DATABASE_URL: 'postgres://u@db:5433/x',
      CAIRN_BENCH_NATS_URL: 'nats://bus:4222',
    };
    expect(settings([], env)).toMatchObject({ durationSec: 4, connections: 16, timedRounds: 5, databaseUrl: 'postgres://u@db:5433/x', natsUrl: 'nats://bus:4222' });
    expect(settings(['--duration', '6'], env).durationSec).toBe(6);
    expect(settings([], { CAIRN_BENCH_DURATION: '' }).durationSec).toBe(10);
  });

  it('collects --only names, repeated or comma-separated, once each', () => {
    expect(settings(['--only', 'user']).only).toEqual(['user']);
    expect(settings(['--only', 'user,version', '--only=user']).only).toEqual(['user', 'version']);
    expect(settings(['--only', 'git-clone']).only).toEqual(['git-clone']);
  });

  it('answers help', () => {
    expect(parseArgs(['--duration', '1', '--help'], {}, NAMES)).toEqual({ kind: 'help' });
  });

  it.each([
    [['--only', 'nope'], 'unknown scenario "nope" (scenarios: version, user, git-clone)'],
    [['--duration', '0'], 'invalid --duration "0"'],
    [['--duration', 'abc'], 'invalid --duration "abc"'],
    [['--warmup', '-1'], 'invalid --warmup "-1"'],
    [['--connections', '2.5'], 'invalid --connections "2.5"'],
    [['--rounds', ''], 'invalid --rounds ""'],
    [['--timed-rounds', '0'], 'invalid --timed-rounds "0"'],
    [['--timed-rounds', '1.5'], 'invalid --timed-rounds "1.5"'],
    [['--duration'], '--duration needs a value'],
    [['--duration', '--strict'], '--duration needs a value'],
    [['--strict=yes'], '--strict takes no value'],
    [['--fast'], 'unknown option "--fast"'],
    [['user'], 'unexpected argument "user"'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv, {}, NAMES)).toThrow(UsageError);
    expect(() => parseArgs(argv, {}, NAMES)).toThrow(message);
  });

  it('refuses a bad environment value, naming the variable', () => {
    expect(() => parseArgs([], { CAIRN_BENCH_ROUNDS: 'two' }, NAMES)).toThrow('invalid CAIRN_BENCH_ROUNDS "two"');
  });
});
