/** The NATS server (with JetStream) tests use. */
export function testNatsUrl(): string {
  return process.env.CAIRN_TEST_NATS_URL || 'nats://127.0.0.1:4222';
}
