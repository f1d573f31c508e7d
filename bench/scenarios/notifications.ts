/**
 * The signed-in bench user's notifications, 1,000,000 threads of them (seed-notifications.ts), with a token
 * (`read:notification`): `GET /api/v1/notifications/new` (the gateway's authentication and notifications'
 * CountUnread, one counter row) and `GET /api/v1/notifications` page 1 of the default list (unread and pinned:
 * ListThreads merging two index ranges, the total from the counters, then repos' BatchGetRepositories, the
 * repository JSON's batches and issues' BatchGetIssues). Baseline: a node:http server doing the same on the same
 * schemas with `pg` (baselines/notifications.ts). Both scenarios share one repository and one seeding per run.
 */
import { Client } from 'pg';
import { basicAuth, httpRequest } from '../cairn';
import { seedNotifications } from '../seed-notifications';
import { DEFAULT_TARGETS, type BenchContext, type LoadScenario } from './types';

const REPOSITORY = 'notifications';
export const SEEDED_THREADS = 1_000_000;
/** Real issues behind the newest threads: more than a page (30). */
const REAL_ISSUES = 40;

async function api(context: BenchContext, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const user = await context.benchUser();
  const answer = await httpRequest(`${context.cairnUrl}/api/v1${path}`, {
    method,
    headers: { authorization: basicAuth(user.username, user.password), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== 201) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

function idOf(value: unknown, what: string): number {
  if (typeof value !== 'number') throw new Error(`${what} has no id`);
  return value;
}

/** Seeds once, answering the notification token's headers. */
async function seed(context: BenchContext): Promise<Record<string, string>> {
  const user = await context.benchUser();
  const repo = await api(context, 'POST', '/user/repos', { name: REPOSITORY, private: false, auto_init: false });
  const repoId = idOf(repo.id, 'the repository');
  const ownerId = idOf((repo.owner as Record<string, unknown> | undefined)?.id, 'the repository owner');
  const issueIds: number[] = [];
  for (let n = 1; n <= REAL_ISSUES; n += 1) {
    issueIds.push(idOf((await api(context, 'POST', `/repos/${user.username}/${REPOSITORY}/issues`, { title: `Notified issue ${n} <&>` })).id, 'an issue'));
    // Every third issue has comments: its subject's latest_comment_url names the newer one.
    if (n % 3 === 0) {
      for (const body of ['first', 'latest']) await api(context, 'POST', `/repos/${user.username}/${REPOSITORY}/issues/${n}/comments`, { body });
    }
  }
  const client = new Client({ connectionString: context.databaseUrl });
  await client.connect();
  try {
    const result = await seedNotifications(client, { userId: ownerId, repoId, issueIds, count: SEEDED_THREADS });
    process.stderr.write(
      `bench: notifications: seeded ${SEEDED_THREADS.toLocaleString('en')} threads in ${(result.loadMs / 1000).toFixed(1)} s ` +
        `(+ ${(result.vacuumMs / 1000).toFixed(1)} s VACUUM ANALYZE)\n`,
    );
  } finally {
    await client.end();
  }
  const token = await api(context, 'POST', `/users/${user.username}/tokens`, { name: 'bench-notifications', scopes: ['read:notification', 'read:repository'] });
  if (typeof token.sha1 !== 'string') throw new Error('the notifications token has no sha1');
  return { authorization: `token ${token.sha1}` };
}

const seeded = new WeakMap<BenchContext, Promise<Record<string, string>>>();

function seedOnce(context: BenchContext): Promise<Record<string, string>> {
  let seeding = seeded.get(context);
  if (seeding === undefined) {
    seeding = seed(context);
    seeded.set(context, seeding);
  }
  return seeding;
}

function notificationsScenario(name: string, path: string, description: string): LoadScenario {
  return {
    kind: 'load',
    name,
    description,
    seedsCairn: true,
    setup: async (context) => ({ headers: await seedOnce(context) }),
    cairn: { method: 'GET', path },
    baseline: {
      start: (context) =>
        context.startBaseline('notifications', {
          BENCH_DATABASE_URL: context.databaseUrl,
          BENCH_POOL_SIZE: String(context.poolSize),
          BENCH_ROOT_URL: context.rootUrl,
        }),
    },
    targets: DEFAULT_TARGETS,
  };
}

export const notificationsNewScenario = notificationsScenario(
  'notifications-new',
  '/api/v1/notifications/new',
  `${SEEDED_THREADS.toLocaleString('en')} threads, unread count, token; baseline: node:http + token query + counter row`,
);
export const notificationsPage1Scenario = notificationsScenario(
  'notifications-page-1',
  '/api/v1/notifications',
  `${SEEDED_THREADS.toLocaleString('en')} threads, default list page 1 (30), token; baseline: node:http + token, page, total and hydration queries`,
);
