/** The BenchContext scenarios get: the running Cairn, the shared bench account, baseline processes. */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startBaselineProcess } from './baseline-process';
import { basicAuth, httpRequest, type CairnInstance } from './cairn';
import { ROOT } from './paths';
import type { BenchContext, BenchUser } from './scenarios/types';

export const BENCH_ROOT_URL = 'http://localhost:3000/';

/** The version Cairn reports: the vendored Gitea API level, then the root package.json's (services/gateway/src/version.ts). */
export function cairnVersion(): string {
  const parsed = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof parsed.version !== 'string') throw new Error('the root package.json has no version');
  const gitea = JSON.parse(fs.readFileSync(path.join(ROOT, 'services', 'gateway', 'api', 'gitea-api-v1.json'), 'utf8')) as { info?: { version?: unknown } };
  if (typeof gitea.info?.version !== 'string') throw new Error('the vendored Gitea API description has no version');
  return `${gitea.info.version}+cairn-${parsed.version}`;
}

async function createBenchUser(cairn: CairnInstance): Promise<BenchUser> {
  const username = 'bench';
  const password = `bench-${randomBytes(8).toString('hex')}`;
  await cairn.cli(['admin', 'user', 'create', '--username', username, '--password', password, '--email', 'bench@example.com']);
  const created = await httpRequest(`${cairn.url}/api/v1/users/${username}/tokens`, {
    method: 'POST',
    headers: { authorization: basicAuth(username, password), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['read:user'] }),
  });
  if (created.status !== 201) throw new Error(`creating the bench token answered ${created.status}: ${created.body}`);
  const token = (JSON.parse(created.body) as { sha1?: unknown }).sha1;
  if (typeof token !== 'string') throw new Error(`creating the bench token answered no sha1: ${created.body}`);
  return { username, password, token };
}

export function createContext(cairn: CairnInstance, options: { databaseUrl: string; natsUrl: string; poolSize: number }): BenchContext {
  let user: Promise<BenchUser> | undefined;
  return {
    cairnUrl: cairn.url,
    rootUrl: BENCH_ROOT_URL,
    version: cairnVersion(),
    databaseUrl: options.databaseUrl,
    natsUrl: options.natsUrl,
    poolSize: options.poolSize,
    servicePid: (name) => cairn.servicePid(name),
    serviceNames: () => cairn.serviceNames(),
    benchUser: () => (user ??= createBenchUser(cairn)),
    startBaseline: startBaselineProcess,
  };
}
