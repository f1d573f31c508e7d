/**
 * Baseline for `GET /api/v1/user` with `Authorization: token …`: what Cairn does for it, minus the
 * services — SHA-256 of the secret, ONE query joining accounts' tokens and users, the scope check, and the
 * user's JSON as the gateway writes it (libs/gitea-json/src/user.ts, viewed by themself).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { JSON_CONTENT_TYPE, goJson } from './gitea-json';
import { requireEnv, serveBaseline } from './serve';
import { USER_COLUMNS, toApiUser, type UserRow } from './user-json';

const rootUrl = requireEnv('BENCH_ROOT_URL');
const pool = new Pool({ connectionString: requireEnv('BENCH_DATABASE_URL'), max: Number(requireEnv('BENCH_POOL_SIZE')) });

const TOKEN_HEADER = /^(?:token|bearer)\s+(\S+)$/i;
const READ_USER_SCOPES = new Set(['all', 'read:user', 'write:user']);

const QUERY = `
  SELECT ${USER_COLUMNS.map((column) => `u.${column}`).join(', ')}, t.scopes
  FROM accounts.access_tokens t
  JOIN accounts.users u ON u.id = t.user_id
  WHERE t.token_hash = $1`;

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = goJson(value);
  res.writeHead(status, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function currentUser(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const secret = TOKEN_HEADER.exec(req.headers.authorization ?? '')?.[1];
  const unauthorized = { message: 'invalid username, password or token', url: `${rootUrl}api/swagger` };
  if (secret === undefined) return send(res, 401, unauthorized);
  const tokenHash = createHash('sha256').update(secret, 'utf8').digest('hex');
  const { rows } = await pool.query<UserRow & { scopes: string[] }>(QUERY, [tokenHash]);
  const row = rows[0];
  if (row === undefined) return send(res, 401, unauthorized);
  if (!row.scopes.some((scope) => READ_USER_SCOPES.has(scope))) {
    return send(res, 403, { message: 'token does not have the scope needed', url: `${rootUrl}api/swagger` });
  }
  send(res, 200, toApiUser(row, rootUrl));
}

serveBaseline(
  (req, res) => {
    if (req.method !== 'GET' || req.url !== '/api/v1/user') {
      res.writeHead(404).end();
      return;
    }
    currentUser(req, res).catch((error: unknown) => {
      process.stderr.write(`baseline user: ${String(error)}\n`);
      if (!res.headersSent) send(res, 500, { message: 'internal error' });
    });
  },
  () => pool.end(),
);
