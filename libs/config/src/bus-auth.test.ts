/**
 * `[bus]` NATS credentials (each method is read, at most one is allowed, and files must be readable), prefix, stream
 * limits and replicas.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError } from './errors';
import { loadConfig } from './load';
import type { BusAuth } from './types';

let root: string;
let counter = 0;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bus-auth-'));
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** Loads `[bus]` with `keys` (URL set unless given) in a fresh work dir; returns the work dir too. */
function loadBus(keys: Record<string, string>, env: NodeJS.ProcessEnv = {}): { auth: BusAuth; workDir: string } {
  const cwd = path.join(root, `case-${++counter}`);
  const workDir = path.join(cwd, 'data');
  fs.mkdirSync(workDir, { recursive: true });
  fs.writeFileSync(path.join(workDir, 'seed.nk'), 'SUAEXAMPLE\n');
  const lines = Object.entries({ URL: 'nats://nats:4222', ...keys }).map(([key, value]) => `${key} = ${value}`);
  fs.writeFileSync(path.join(workDir, 'app.ini'), `[bus]\n${lines.join('\n')}\n`);
  return { auth: loadConfig({ env, cwd }).config.bus.auth, workDir };
}

function busError(keys: Record<string, string>): ConfigError {
  try {
    loadBus(keys);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

it('reads each credential method', () => {
  expect(loadBus({}).auth).toEqual({ kind: 'none' });
  expect(loadBus({ USER: 'social', PASSWORD: 's3cret' }).auth).toEqual({ kind: 'password', user: 'social', password: 's3cret' });
  expect(loadBus({ TOKEN: 't0ken' }).auth).toEqual({ kind: 'token', token: 't0ken' });
  const nkey = loadBus({ NKEY_SEED_FILE: 'seed.nk' });
  expect(nkey.auth).toEqual({ kind: 'nkey', seedFile: path.join(nkey.workDir, 'seed.nk') });
  const creds = loadBus({ CREDS_FILE: 'seed.nk' });
  expect(creds.auth).toEqual({ kind: 'creds', credsFile: path.join(creds.workDir, 'seed.nk') });
});

it('takes the password from a file named by CAIRN__bus__PASSWORD__FILE (a mounted Secret)', () => {
  const file = path.join(root, 'password');
  fs.writeFileSync(file, 'from-secret\n');
  expect(loadBus({ USER: 'accounts' }, { CAIRN__bus__PASSWORD__FILE: file }).auth).toEqual({
    kind: 'password',
    user: 'accounts',
    password: 'from-secret',
  });
});

it.each([
  [{ USER: 'social' }, 'bus.PASSWORD', 'USER and PASSWORD must be set together'],
  [{ PASSWORD: 'x' }, 'bus.USER', 'USER and PASSWORD must be set together'],
  [{ USER: 'social', PASSWORD: 'x', TOKEN: 't' }, 'bus.TOKEN', 'choose one way to authenticate'],
  [{ TOKEN: 't', CREDS_FILE: 'seed.nk' }, 'bus.CREDS_FILE', 'choose one way to authenticate'],
  [{ NKEY_SEED_FILE: 'missing.nk' }, 'bus.NKEY_SEED_FILE', 'expected a readable file'],
  [{ CREDS_FILE: '.' }, 'bus.CREDS_FILE', 'expected a readable NATS .creds file'],
  [{ URL: '', TOKEN: 't' }, 'bus.TOKEN', 'without [bus] URL'],
])('refuses %j', (keys, key, message) => {
  const error = busError(keys);
  expect(error.key).toBe(key);
  expect(error.message).toContain(message);
});

describe('[bus] PREFIX, stream limits and replicas', () => {
  function loadBusConfig(keys: Record<string, string>) {
    const cwd = path.join(root, `case-${++counter}`);
    const workDir = path.join(cwd, 'data');
    fs.mkdirSync(workDir, { recursive: true });
    fs.writeFileSync(path.join(workDir, 'app.ini'), `[bus]\n${Object.entries(keys).map(([key, value]) => `${key} = ${value}`).join('\n')}\n`);
    return loadConfig({ env: {}, cwd });
  }

  it('reads them, with the documented defaults and no unknown-setting warning', () => {
    const set = loadBusConfig({ PREFIX: 'staging-2', STREAM_MAX_AGE: '36h', STREAM_MAX_BYTES: '0' });
    expect(set.config.bus).toMatchObject({ prefix: 'staging-2', streamMaxAgeMs: 36 * 3_600_000, streamMaxBytes: 0 });
    expect(set.warnings).toEqual([]);
    expect(loadBusConfig({}).config.bus).toMatchObject({ prefix: 'cairn', streamMaxAgeMs: 7 * 24 * 3_600_000, streamMaxBytes: 1024 ** 3 });
  });

  it('reads the public event streams\' limits and the replicas, defaults 30 days, 1 GiB and 1', () => {
    const set = loadBusConfig({ EVENTS_MAX_AGE: '2160h', EVENTS_MAX_BYTES: '0', STREAM_REPLICAS: '3' });
    expect(set.config.bus).toMatchObject({ eventsMaxAgeMs: 90 * 24 * 3_600_000, eventsMaxBytes: 0, streamReplicas: 3 });
    expect(set.warnings).toEqual([]);
    expect(loadBusConfig({ EVENTS_MAX_AGE: '0' }).config.bus.eventsMaxAgeMs).toBe(0);
    expect(loadBusConfig({}).config.bus).toMatchObject({ eventsMaxAgeMs: 30 * 24 * 3_600_000, eventsMaxBytes: 1024 ** 3, streamReplicas: 1 });
  });

  it.each([
    [{ EVENTS_MAX_AGE: 'a month' }, 'bus.EVENTS_MAX_AGE'],
    [{ EVENTS_MAX_BYTES: '-1' }, 'bus.EVENTS_MAX_BYTES'],
    [{ EVENTS_MAX_BYTES: '10GiB' }, 'bus.EVENTS_MAX_BYTES'],
    [{ STREAM_REPLICAS: '0' }, 'bus.STREAM_REPLICAS'],
    [{ STREAM_REPLICAS: '6' }, 'bus.STREAM_REPLICAS'],
    [{ STREAM_REPLICAS: 'three' }, 'bus.STREAM_REPLICAS'],
  ])('refuses %j naming the key', (keys, key) => {
    expect(() => loadBusConfig(keys)).toThrow(ConfigError);
    try {
      loadBusConfig(keys);
    } catch (error) {
      expect((error as ConfigError).key).toBe(key);
    }
  });

  it('refuses a prefix that cannot head subjects, streams and durables, naming the key', () => {
    for (const prefix of ['a.b', 'Cairn', 'x*', '-x', 'a'.repeat(33)]) {
      expect(() => loadBusConfig({ PREFIX: prefix })).toThrow(/bus\.PREFIX|\[bus\] PREFIX/);
    }
    expect(() => loadBusConfig({ STREAM_MAX_AGE: 'a week' })).toThrow(/STREAM_MAX_AGE/);
    expect(() => loadBusConfig({ STREAM_MAX_BYTES: '-1' })).toThrow(/STREAM_MAX_BYTES/);
  });
});
