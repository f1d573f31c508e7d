/**
 * Baseline for `GET /api/v1/repos/{owner}/{repo}/issues` (anonymous, public repository): a node:http server reading
 * the repos, issues and accounts schemas of Cairn's database directly (issue-list-handler.ts), with a pool as large
 * as each of Cairn's.
 */
import { Pool } from 'pg';
import { createIssueListHandler } from './issue-list-handler';
import { requireEnv, serveBaseline } from './serve';

const pool = new Pool({ connectionString: requireEnv('BENCH_DATABASE_URL'), max: Number(requireEnv('BENCH_POOL_SIZE')) });

serveBaseline(
  createIssueListHandler(pool, { rootUrl: requireEnv('BENCH_ROOT_URL'), noReplyAddress: requireEnv('BENCH_NO_REPLY_ADDRESS') }),
  () => pool.end(),
);
