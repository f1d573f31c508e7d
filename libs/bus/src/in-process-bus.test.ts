import { silentLogger } from '@cairn/log';
import { createTestDatabase, uniqueName, type TestDatabase } from '@cairn/testing';
import { createInProcessBus } from './in-process-bus';
import { describeBusContract } from './test-support/contract';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('bus_in_process');
});

afterAll(async () => {
  await database.drop();
});

describeBusContract('in-process (PostgreSQL)', {
  prefix: uniqueName('ct'),
  connect: () => createInProcessBus({ url: database.url, logger: silentLogger() }),
  broadcastAcrossInstances: false,
});
