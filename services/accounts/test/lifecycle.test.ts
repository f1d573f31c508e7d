import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInProcessBus, decodeEvent, type BusMessage } from '@cairn/bus';
import { loadConfig, type CairnConfig } from '@cairn/config';
import { silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { UserCreated } from '@cairn/proto/cairn/accounts/v1/events';
import { Code, createRpcClient } from '@cairn/rpc';
import { createTestDatabase, eventually, type TestDatabase } from '@cairn/testing';
import { Client } from 'pg';
import { ACCOUNTS_STREAM, ACCOUNTS_SUBJECTS, MIGRATIONS_DIR, start } from '../src/index';
import { recordingBus } from './harness';

const logger = silentLogger();
let database: TestDatabase;
let workDir: string;
let config: CairnConfig;

beforeAll(async () => {
  database = await createTestDatabase('accounts_life');
  workDir = mkdtempSync(path.join(tmpdir(), 'cairn-accounts-'));
  ({ config } = loadConfig({ env: { CAIRN_WORK_DIR: workDir, CAIRN__DATABASE__URL: database.url } }));
});

afterAll(async () => {
  await database?.drop();
  rmSync(workDir, { recursive: true, force: true });
});

const newUser = (username: string) => ({
  username,
  email: `${username}@example.com`,
  password: 'password-1234',
  fullName: '',
  loginName: '',
  sourceId: 0,
  mustChangePassword: false,
  restricted: false,
  visibility: '',
  isAdmin: false,
  actorId: 0,
});

it('declares its stream and relays each committed event with its id as the message id', async () => {
  const bus = recordingBus();
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const users = createRpcClient(UserServiceService, { target: `127.0.0.1:${service.port}`, service: 'accounts', caller: 'gateway', logger });
  try {
    expect(service.name).toBe('accounts');
    const subjects = ['cairn.user.>', 'cairn.access_token.>', 'cairn.org.>', 'cairn.org_member.>', 'cairn.team.>', 'cairn.team_member.>'];
    expect(bus.streams).toEqual([{ name: 'CAIRN_ACCOUNTS', subjects }]);
    expect(ACCOUNTS_STREAM).toBe('CAIRN_ACCOUNTS');
    expect(ACCOUNTS_SUBJECTS).toEqual(subjects);

    const { user } = await users.createUser(newUser('relayed'));
    const published = await eventually(() => {
      const found = bus.published.find((p) => p.subject === 'cairn.user.created');
      if (found === undefined) throw new Error('not published yet');
      return found;
    });
    const event = decodeEvent(UserCreated, published.data);
    expect(event.user).toEqual(user);
    expect(published.id).toBe(event.meta!.eventId);
  } finally {
    users.close();
    await service.stop();
  }
});

it('restarts on the same database without reapplying migrations, keeping its data', async () => {
  const bus = recordingBus();
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const users = createRpcClient(UserServiceService, { target: `127.0.0.1:${service.port}`, service: 'accounts', caller: 'gateway', logger });
  try {
    await expect(users.getUser({ username: 'relayed' })).resolves.toMatchObject({ user: { login: 'relayed' } });
  } finally {
    users.close();
    await service.stop();
  }
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  try {
    const { rows } = await sql.query('SELECT count(*)::int AS n FROM accounts.schema_migrations');
    expect(rows[0].n).toBe(readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql')).length);
  } finally {
    await sql.end();
  }
});

it('stops serving on stop(), and stop() may be called twice', async () => {
  const service = await start({ config, logger, bus: recordingBus(), listen: '127.0.0.1:0' });
  const users = createRpcClient(UserServiceService, {
    target: `127.0.0.1:${service.port}`,
    caller: 'gateway',
    service: 'accounts',
    logger,
    deadlineMs: 1000,
  });
  try {
    await users.getUser({ username: 'relayed' });
    await Promise.all([service.stop(), service.stop()]);
    await expect(users.getUser({ username: 'relayed' })).rejects.toMatchObject({ code: Code.UNAVAILABLE });
  } finally {
    users.close();
  }
});

it('fails to start, releasing what it opened, when the port is taken', async () => {
  const first = await start({ config, logger, bus: recordingBus(), listen: '127.0.0.1:0' });
  // grpc-js reports the failed bind on the console as well.
  const consoleError = jest.spyOn(global.console, 'error').mockImplementation(() => {});
  try {
    await expect(start({ config, logger, bus: recordingBus(), listen: `127.0.0.1:${first.port}` })).rejects.toThrow();
  } finally {
    consoleError.mockRestore();
    await first.stop();
  }
});

it('delivers its events to consumers through the in-process bus', async () => {
  const bus = await createInProcessBus({ url: database.url, logger });
  const service = await start({ config, logger, bus, listen: '127.0.0.1:0' });
  const users = createRpcClient(UserServiceService, { target: `127.0.0.1:${service.port}`, service: 'accounts', caller: 'gateway', logger });
  const received: BusMessage[] = [];
  const subscription = await bus.consume({
    stream: ACCOUNTS_STREAM,
    durable: 'accounts-test',
    filterSubject: 'cairn.user.created',
    handler: async (message) => {
      received.push(message);
    },
  });
  try {
    const { user } = await users.createUser(newUser('consumed'));
    const message = await eventually(() => {
      const found = received.find((m) => decodeEvent(UserCreated, m.data).user?.id === user!.id);
      if (found === undefined) throw new Error('not delivered yet');
      return found;
    });
    expect(message.subject).toBe('cairn.user.created');
  } finally {
    await subscription.stop();
    users.close();
    await service.stop();
    await bus.close();
  }
});
