/**
 * SIGTERM for accounts (`stop()`): health turns NOT_SERVING, a call in flight still finishes, and the event
 * it wrote is published by the relay's flush before stop() resolves; new calls are refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeEvent } from '@cairn/bus';
import { loadConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { CreateUserRequest, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { UserCreated } from '@cairn/proto/cairn/accounts/v1/events';
import { Code, createHealthClient, createRpcClient } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { start } from '../src/index';
import { recordingBus } from './harness';

const logger = silentLogger();
let database: TestDatabase;
let workDir: string;

beforeAll(async () => {
  database = await createTestDatabase('accounts_stop');
  workDir = mkdtempSync(path.join(tmpdir(), 'cairn-accounts-'));
});

afterAll(async () => {
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

it('lets the call in flight finish and flushes its event before stopping', async () => {
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } });
  const bus = recordingBus();
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const target = `127.0.0.1:${service.port}`;
  const users = createRpcClient(UserServiceService, { target, service: 'accounts', caller: 'gateway', logger, deadlineMs: 30_000 });
  const health = createHealthClient(target);
  const locker = new Client({ connectionString: database.url });
  const watcher = new Client({ connectionString: database.url });
  await locker.connect();
  await watcher.connect();
  try {
    expect(await health.check()).toBe(true);
    // Hold the users table so the next CreateUser waits inside its transaction.
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE accounts.users IN EXCLUSIVE MODE');
    const created = users.createUser(CreateUserRequest.fromPartial({ username: 'late', email: 'late@example.com', password: 'late-pass-1234' }));
    await eventually(async () => {
      const { rows } = await watcher.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (rows[0].n === 0) throw new Error('CreateUser is not waiting yet');
    });

    let stopped = false;
    const stopping = service.stop().then(() => (stopped = true));
    expect(await health.check()).toBe(false);
    const refused = await users.getUser({ username: 'late' }).catch((error: { code?: Code }) => error);
    expect(refused).toMatchObject({ code: Code.UNAVAILABLE });
    expect(stopped).toBe(false);

    await locker.query('COMMIT');
    const { user } = await created;
    expect(user?.login).toBe('late');
    await stopping;
    // Published by the time stop() resolved: nothing was left in the outbox.
    const events = bus.published.filter((p) => p.subject === 'cairn.user.created').map((p) => decodeEvent(UserCreated, p.data));
    expect(events.map((event) => event.user?.id)).toContain(user?.id);
    const { rows } = await watcher.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts.cairn_outbox WHERE published_at IS NULL');
    expect(rows[0].n).toBe(0);
  } finally {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end();
    await watcher.end();
    health.close();
    users.close();
    await service.stop();
  }
});
