/** The issues service starts on a fresh database, applies its schema, serves gRPC and stops cleanly. */
import { startService, type ServiceHarness } from './harness';

let harness: ServiceHarness;

beforeAll(async () => {
  harness = await startService();
});
afterAll(async () => {
  await harness.stop();
});

test('the schema is in place, with the counters the lists read', async () => {
  const { rows } = await harness.sql.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'issues' ORDER BY table_name",
  );
  expect(rows.map((row) => row.table_name)).toEqual(
    expect.arrayContaining(['comments', 'issue_blocks', 'issue_counts', 'issues', 'labels', 'milestones', 'stopwatches', 'tracked_times']),
  );
});
