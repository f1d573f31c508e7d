/**
 * Test helpers for the delivery engine: a hooks schema on a fresh database, rows inserted directly (hooks, payloads,
 * tasks), a loopback HTTP receiver that records every request and counts connections, and a context for the
 * deliverer with the webhook settings a test wants.
 */
import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { type CairnConfig, loadConfig } from '@cairn/config';
import { type Database, openDatabase } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { DATABASE_SCHEMA, MIGRATIONS_DIR } from '../src/index';
import type { HooksClients, HooksContext } from '../src/rpc/context';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** TCP connections accepted, including ones whose request never completed. */
  connections: number;
  /** The status of each next answer, in order (0: never answer); 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const receiver: Receiver = { url: '', port: 0, received: [], connections: 0, answers: [], close: () => Promise.resolve() };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = receiver.answers.shift() ?? 200;
      if (status === 0) return;
      response.writeHead(status, { 'content-type': 'text/plain', 'x-receiver': 'test' });
      response.end(`answer ${status}`);
    });
  });
  server.on('connection', () => {
    receiver.connections += 1;
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      // Requests left unanswered on purpose.
      server.closeAllConnections();
    });
  server.keepAliveTimeout = 1;
  return receiver;
}

/** A port nothing listens on (taken, then given back). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface HookRow {
  url: string;
  scope?: 'repository' | 'organization' | 'user' | 'system';
  repoId?: number;
  ownerId?: number;
  type?: string;
  contentType?: 'json' | 'form';
  secret?: string;
  authorizationHeader?: string;
  active?: boolean;
}

export interface DeliveryDatabase {
  /** The test database's URL (schema hooks). */
  url: string;
  db: Database;
  sql: Client;
  insertHook(hook: HookRow): Promise<number>;
  insertPayload(payload?: Record<string, unknown>, event?: string, eventType?: string): Promise<number>;
  /** A pending task due now; returns its uuid. */
  insertTask(hookId: number, payloadId: number): Promise<string>;
  task(uuid: string): Promise<TaskRow>;
  close(): Promise<void>;
}

export interface TaskRow {
  uuid: string;
  state: string;
  attempts: number;
  is_succeed: boolean;
  request_info: { url: string; http_method: string; headers: Record<string, string> } | null;
  response_info: { status: number; headers: Record<string, string>; body: string } | null;
  redelivery_of: string | null;
  next_attempt_at: Date;
  claimed_until: Date | null;
}

export async function openDeliveryDatabase(): Promise<DeliveryDatabase> {
  const database: TestDatabase = await createTestDatabase('hooks');
  const db = await openDatabase({ url: database.url, schema: DATABASE_SCHEMA, logger: silentLogger(), migrationsDir: MIGRATIONS_DIR });
  const sql = new Client({ connectionString: database.url, options: `-c search_path=${DATABASE_SCHEMA}` });
  await sql.connect();
  return {
    url: database.url,
    db,
    sql,
    async insertHook(hook) {
      const scope = hook.scope ?? 'repository';
      const result = await sql.query<{ id: string }>(
        `INSERT INTO hooks (scope, repo_id, owner_id, type, url, content_type, secret, authorization_header, active)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [
          scope,
          scope === 'repository' ? (hook.repoId ?? 1) : null,
          scope === 'organization' || scope === 'user' ? (hook.ownerId ?? 1) : null,
          hook.type ?? 'gitea',
          hook.url,
          hook.contentType ?? 'json',
          hook.secret ?? '',
          hook.authorizationHeader ?? '',
          hook.active ?? true,
        ],
      );
      return Number(result.rows[0].id);
    },
    async insertPayload(payload = { action: 'opened', number: 1 }, event = 'issues', eventType = 'issues') {
      const result = await sql.query<{ id: string }>(
        'INSERT INTO hook_payloads (event_id, event_type, event, repo_id, payload, delivery_id) VALUES ($1, $2, $3, 1, $4, $5) RETURNING id',
        [randomUUID(), eventType, event, JSON.stringify(payload), randomUUID()],
      );
      return Number(result.rows[0].id);
    },
    async insertTask(hookId, payloadId) {
      const uuid = randomUUID();
      await sql.query('INSERT INTO hook_tasks (uuid, hook_id, payload_id) VALUES ($1, $2, $3)', [uuid, hookId, payloadId]);
      return uuid;
    },
    async task(uuid) {
      const result = await sql.query<TaskRow>('SELECT * FROM hook_tasks WHERE uuid = $1', [uuid]);
      return result.rows[0];
    },
    async close() {
      await sql.end();
      await db.close();
      await database.drop();
    },
  };
}

/** The deliverer's context with `webhook` settings over the defaults (and `security.disableWebhooks`). */
export function deliveryContext(db: Database, webhook: Partial<CairnConfig['webhook']>, disableWebhooks = false): HooksContext {
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: '/nonexistent-cairn-test' } });
  return {
    db,
    logger: silentLogger(),
    config: { ...config, webhook: { ...config.webhook, ...webhook }, security: { ...config.security, disableWebhooks } },
    // The deliverer and the delivery RPCs call no other service.
    clients: {} as HooksClients,
  };
}
