import { createInProcessBus, type Bus } from '@cairn/bus';
import { loadConfig, type CairnConfig } from '@cairn/config';
import { type Database, sql } from '@cairn/db';
import { silentLogger } from '@cairn/log';
import { createTestDatabase, type TestDatabase } from '@cairn/testing';
import { startGrpcService, type ServedServer } from './grpc-service';

const logger = silentLogger();
let database: TestDatabase;
let config: CairnConfig;
let bus: Bus;

beforeAll(async () => {
  database = await createTestDatabase('grpc_service');
  ({ config } = loadConfig({ env: { CAIRN__DATABASE__URL: database.url } }));
  bus = await createInProcessBus({ url: database.url, logger });
});

afterAll(async () => {
  await bus?.close();
  await database?.drop();
});

/** A server that records what happens to it in `log`. */
function recordingServer(log: string[], port = 4321): ServedServer {
  return {
    start: async (listen) => {
      log.push(`start ${listen}`);
      return port;
    },
    setServing: (serving) => void log.push(`serving ${serving}`),
    stop: async () => void log.push('server stop'),
  };
}

it('serves only after set-up, and stops the server first, then releases in reverse order, the pool last, once', async () => {
  const log: string[] = [];
  let database: Database | undefined;
  const service = await startGrpcService({ config, logger, bus, listen: '127.0.0.1:0' }, { name: 'social', schema: 'grpc_service' }, async ({ db, onStop }) => {
    database = db;
    onStop(() => void log.push('client close'));
    onStop(async () => void log.push('relay stop'));
    log.push('set up');
    return recordingServer(log);
  });
  expect(service).toEqual({ name: 'social', port: 4321, stop: expect.any(Function) });
  await expect(database!.pool.oneFirst(sql.unsafe`SELECT current_schema()`)).resolves.toBe('grpc_service');
  await Promise.all([service.stop(), service.stop()]);
  expect(log).toEqual(['set up', 'start 127.0.0.1:0', 'serving true', 'server stop', 'relay stop', 'client close']);
  await expect(database!.pool.query(sql.unsafe`SELECT 1`)).rejects.toThrow();
});

it('runs beforeListen after set-up and right before binding (the supervisor frees the port it held there)', async () => {
  const log: string[] = [];
  const service = await startGrpcService(
    { config, logger, bus, listen: '127.0.0.1:0', beforeListen: async () => void log.push('before listen') },
    { name: 'social', schema: 'grpc_service' },
    async () => {
      log.push('set up');
      return recordingServer(log);
    },
  );
  await service.stop();
  expect(log.slice(0, 4)).toEqual(['set up', 'before listen', 'start 127.0.0.1:0', 'serving true']);
});

it("listens on the service's configured address by default", async () => {
  const log: string[] = [];
  const service = await startGrpcService({ config, logger, bus }, { name: 'git-storage', schema: 'grpc_service' }, async () => recordingServer(log));
  await service.stop();
  expect(log[0]).toBe(`start ${config.services['git-storage'].listen}`);
});

it('releases what a failed set-up acquired, in reverse order, and rethrows', async () => {
  const log: string[] = [];
  let database: Database | undefined;
  const failing = startGrpcService({ config, logger, bus }, { name: 'social', schema: 'grpc_service' }, async ({ db, onStop }) => {
    database = db;
    onStop(() => void log.push('client close'));
    onStop(() => void log.push('relay stop'));
    throw new Error('stream missing');
  });
  await expect(failing).rejects.toThrow('stream missing');
  expect(log).toEqual(['relay stop', 'client close']);
  await expect(database!.pool.query(sql.unsafe`SELECT 1`)).rejects.toThrow();
});
