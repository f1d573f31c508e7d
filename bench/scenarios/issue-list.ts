/**
 * `GET /api/v1/repos/{owner}/{repo}/issues?state=open&page=N` (default page size, 30), anonymous, on a public
 * repository holding 1,000,000 issues: the gateway (repos' access decision, issues' ListIssues over gRPC, one
 * accounts batchGetUsers, Gitea's JSON, Link and X-Total-Count), against a node:http server reading the same
 * schemas itself with three `pg` queries (baselines/issue-list-handler.ts). Page 1 and page 500 (rows 14,971–15,000
 * of the open ones): neither side may count rows or skip them with OFFSET, so page 500 should cost what page 1 costs.
 *
 * Both scenarios share one repository, created through the API and seeded once per run (seed-issues.ts).
 */
import { Client } from 'pg';
import { basicAuth, httpRequest } from '../cairn';
import { seedIssues } from '../seed-issues';
import { DEFAULT_TARGETS, type BenchContext, type LoadScenario } from './types';

/** The bench account's name (context.ts creates it): the measured path must be known before setup runs. */
const OWNER = 'bench';
const REPOSITORY = 'issue-list';
export const SEEDED_ISSUES = 1_000_000;
/** What Cairn's `[service] NO_REPLY_ADDRESS` is when the bench sets no `[server] DOMAIN`: the placeholder e-mails' domain. */
const NO_REPLY_ADDRESS = 'noreply.localhost';

interface SeededRepository {
  id: number;
  ownerId: number;
}

async function createRepository(context: BenchContext): Promise<SeededRepository> {
  const owner = await context.benchUser();
  if (owner.username !== OWNER) throw new Error(`the bench account is "${owner.username}", the issue-list scenarios expect "${OWNER}"`);
  const created = await httpRequest(`${context.cairnUrl}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: basicAuth(owner.username, owner.password), 'content-type': 'application/json' },
    body: JSON.stringify({ name: REPOSITORY, private: false, auto_init: false }),
  });
  if (created.status !== 201) throw new Error(`creating ${OWNER}/${REPOSITORY} answered ${created.status}: ${created.body}`);
  const repo = JSON.parse(created.body) as { id?: unknown; owner?: { id?: unknown } };
  if (typeof repo.id !== 'number' || typeof repo.owner?.id !== 'number') throw new Error(`creating ${OWNER}/${REPOSITORY} answered no ids: ${created.body}`);
  return { id: repo.id, ownerId: repo.owner.id };
}

async function seedRepository(context: BenchContext): Promise<void> {
  const repo = await createRepository(context);
  const client = new Client({ connectionString: context.databaseUrl });
  await client.connect();
  try {
    const result = await seedIssues(client, { repoId: repo.id, posterId: repo.ownerId, count: SEEDED_ISSUES });
    process.stderr.write(
      `bench: issue-list: seeded ${SEEDED_ISSUES.toLocaleString('en')} issues into ${OWNER}/${REPOSITORY} in ` +
        `${(result.loadMs / 1000).toFixed(1)} s (+ ${(result.vacuumMs / 1000).toFixed(1)} s VACUUM ANALYZE)\n`,
    );
  } finally {
    await client.end();
  }
}

/** One seeding per run (per context), whichever of the scenarios runs first. */
const seeded = new WeakMap<BenchContext, Promise<void>>();

function seedOnce(context: BenchContext): Promise<void> {
  let seeding = seeded.get(context);
  if (seeding === undefined) {
    seeding = seedRepository(context);
    seeded.set(context, seeding);
  }
  return seeding;
}

export function createIssueListScenario(page: number): LoadScenario {
  return {
    kind: 'load',
    name: `issues-page-${page}`,
    description: `${SEEDED_ISSUES.toLocaleString('en')} issues, open ones, page ${page} (30 a page), anonymous; baseline: node:http + 3 pg queries (block counters, no OFFSET scan)`,
    seedsCairn: true,
    setup: async (context) => {
      await seedOnce(context);
      return {};
    },
    cairn: { method: 'GET', path: `/api/v1/repos/${OWNER}/${REPOSITORY}/issues?state=open&page=${page}` },
    baseline: {
      start: (context) =>
        context.startBaseline('issue-list', {
          BENCH_DATABASE_URL: context.databaseUrl,
          BENCH_POOL_SIZE: String(context.poolSize),
          BENCH_ROOT_URL: context.rootUrl,
          BENCH_NO_REPLY_ADDRESS: NO_REPLY_ADDRESS,
        }),
    },
    targets: DEFAULT_TARGETS,
  };
}

export const issuesPage1Scenario = createIssueListScenario(1);
export const issuesPage500Scenario = createIssueListScenario(500);
