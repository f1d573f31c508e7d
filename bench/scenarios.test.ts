/**
 * The scenario registry is complete and every scenario well-formed (no process started: baselines are
 * "started" against a fake context that records what they ask for), and the baselines write exactly what
 * the gateway writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { goJson as gatewayGoJson } from '@cairn/http';
import { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { toApiUser as gatewayToApiUser } from '@cairn/gitea-json';
import { goJson } from './baselines/gitea-json';
import { toApiUser, type UserRow } from './baselines/user-json';
import { SCENARIOS } from './scenarios';
import type { BenchContext, LatencyScenario, LoadScenario, Scenario, SingleScenario, TimedScenario } from './scenarios/types';

const SCENARIOS_DIR = path.join(__dirname, 'scenarios');
const BASELINES_DIR = path.join(__dirname, 'baselines');

function fakeContext(started: Array<{ name: string; env: Record<string, string> }>): BenchContext {
  return {
    cairnUrl: 'http://127.0.0.1:1',
    rootUrl: 'http://localhost:3000/',
    version: '1.2.3',
    databaseUrl: 'postgres://postgres@127.0.0.1:5432/cairn_bench_test',
    natsUrl: 'nats://127.0.0.1:4222',
    poolSize: 10,
    servicePid: () => process.pid,
    serviceNames: () => [],
    benchUser: async () => ({ username: 'bench', password: 'pw', token: 'f'.repeat(40) }),
    startBaseline: async (name, env) => {
      started.push({ name, env });
      return { url: 'http://127.0.0.1:2', stop: async () => {} };
    },
  };
}

describe('scenario registry', () => {
  it('lists every scenario module of bench/scenarios/', async () => {
    const modules = fs
      .readdirSync(SCENARIOS_DIR)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !['index.ts', 'types.ts'].includes(file));
    expect(modules.length).toBeGreaterThan(0);
    for (const file of modules) {
      const exported = Object.values((await import(path.join(SCENARIOS_DIR, file))) as Record<string, unknown>);
      expect([file, exported.some((value) => SCENARIOS.includes(value as Scenario))]).toEqual([file, true]);
    }
  });

  it('has unique names usable with --only', () => {
    const names = SCENARIOS.map((scenario) => scenario.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  const loadScenarios = SCENARIOS.filter((scenario): scenario is LoadScenario => scenario.kind === 'load');
  const timedScenarios = SCENARIOS.filter((scenario): scenario is TimedScenario => scenario.kind === 'timed');
  const latencyScenarios = SCENARIOS.filter((scenario): scenario is LatencyScenario => scenario.kind === 'latency');
  const singleScenarios = SCENARIOS.filter((scenario): scenario is SingleScenario => scenario.kind === 'single');

  it('has every kind', () => {
    expect(loadScenarios.length + timedScenarios.length + latencyScenarios.length + singleScenarios.length).toBe(SCENARIOS.length);
    expect(singleScenarios.map((scenario) => scenario.name)).toContain('migrate-issues');
    expect(timedScenarios.map((scenario) => scenario.name)).toContain('git-clone');
    expect(latencyScenarios.map((scenario) => scenario.name)).toContain('webhook-latency');
  });

  it.each(loadScenarios.map((scenario) => [scenario.name, scenario] as const))('load scenario %s has every field the runner needs', async (_name, scenario) => {
    expect(scenario.description.trim()).not.toBe('');
    expect(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).toContain(scenario.cairn.method);
    expect(scenario.cairn.path).toMatch(/^\/api\/v1\//);
    expect(scenario.targets.minThroughputRatio).toBeGreaterThan(0);
    expect(scenario.targets.maxP99Ratio).toBeGreaterThan(0);

    const started: Array<{ name: string; env: Record<string, string> }> = [];
    const context = fakeContext(started);
    if (scenario.seedsCairn !== true) {
      const setup = await scenario.setup(context);
      for (const value of Object.values(setup.headers ?? {})) expect(typeof value).toBe('string');
    }
    const baseline = await scenario.baseline.start(context);
    expect(baseline.url).toMatch(/^http:\/\//);
    // The baseline it starts exists, and gets strings only (they become environment variables).
    expect(started).toHaveLength(1);
    expect(fs.existsSync(path.join(BASELINES_DIR, `${started[0].name}.ts`))).toBe(true);
    for (const value of Object.values(started[0].env)) expect(typeof value).toBe('string');
  });

  // What their `prepare` does is tested with each one (git-clone: git-clone.test.ts).
  it.each(timedScenarios.map((scenario) => [scenario.name, scenario] as const))('timed scenario %s has every field the runner needs', (_name, scenario) => {
    expect(scenario.description.trim()).not.toBe('');
    expect(scenario.command.trim()).not.toBe('');
    expect(typeof scenario.prepare).toBe('function');
    expect(scenario.targets.maxTimeRatio).toBeGreaterThan(0);
  });

  // What their `prepare` does is tested with each one (webhook-latency: webhook-latency.test.ts).
  it.each(latencyScenarios.map((scenario) => [scenario.name, scenario] as const))('latency scenario %s has every field the runner needs', (_name, scenario) => {
    expect(scenario.description.trim()).not.toBe('');
    expect(scenario.event.trim()).not.toBe('');
    expect(typeof scenario.prepare).toBe('function');
    expect(scenario.targets.maxP99Ratio).toBeGreaterThan(0);
  });

  // What their `run` does is tested with each one (migrate-issues: migrate-issues.test.ts).
  it.each(singleScenarios.map((scenario) => [scenario.name, scenario] as const))('single scenario %s has every field the runner needs', (_name, scenario) => {
    expect(scenario.description.trim()).not.toBe('');
    expect(scenario.work.trim()).not.toBe('');
    expect(typeof scenario.run).toBe('function');
  });
});

describe('baselines write what the gateway writes', () => {
  it('encodes JSON like Go', () => {
    const value = { message: '<a href="x">&</a>\u2028\u2029', n: 1 };
    expect(goJson(value)).toBe(gatewayGoJson(value));
  });

  const row: UserRow = {
    id: '42',
    name: 'Bench.User',
    full_name: 'Bench <User> & co',
    email: 'bench@example.com',
    login_name: 'ldap-bench',
    source_id: '3',
    is_admin: true,
    is_active: true,
    prohibit_login: false,
    restricted: true,
    visibility: 'limited',
    language: 'fr-FR',
    location: 'Lyon',
    website: 'https://example.com',
    description: 'bio',
    last_login: new Date('2025-03-04T05:06:07.890Z'),
    created_at: new Date('2024-01-02T03:04:05.678Z'),
  };
  const rootUrl = 'http://localhost:3000/';

  /** The User accounts sends for `row` (services/accounts/src/store/users.ts `toUser`). */
  function protoUser(from: UserRow): User {
    return User.create({
      id: Number(from.id),
      login: from.name,
      loginName: from.login_name,
      sourceId: Number(from.source_id),
      fullName: from.full_name,
      email: from.email,
      language: from.language,
      isAdmin: from.is_admin,
      lastLogin: from.last_login ?? new Date(0),
      created: from.created_at,
      restricted: from.restricted,
      active: from.is_active,
      prohibitLogin: from.prohibit_login,
      location: from.location,
      website: from.website,
      description: from.description,
      visibility: from.visibility,
    });
  }

  it.each([
    ['a user who signed in', row],
    ['a user who never signed in', { ...row, last_login: null, is_admin: false, visibility: 'public' }],
  ])('the user baseline renders %s as GET /user does, byte for byte', (_what, user) => {
    const viewer = protoUser(user);
    expect(goJson(toApiUser(user, rootUrl))).toBe(gatewayGoJson(gatewayToApiUser(viewer, { rootUrl })));
  });
});
