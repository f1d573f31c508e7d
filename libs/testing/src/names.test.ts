import { testNatsUrl } from './nats';
import { uniqueName } from './names';

describe('uniqueName', () => {
  it('is a lower-case identifier with a random suffix', () => {
    const name = uniqueName('Accounts.Events-Test');
    expect(name).toMatch(/^accounts_events_test_[0-9a-f]{12}$/);
    expect(uniqueName('accounts')).not.toBe(uniqueName('accounts'));
  });

  it('stays a valid identifier for any prefix', () => {
    for (const prefix of ['', '123', '***', 'x'.repeat(100)]) {
      const name = uniqueName(prefix);
      expect(name).toMatch(/^[a-z_][a-z0-9_]{0,62}$/);
    }
  });
});

describe('testNatsUrl', () => {
  const saved = process.env.CAIRN_TEST_NATS_URL;
  afterEach(() => {
    if (saved === undefined) delete process.env.CAIRN_TEST_NATS_URL;
    else process.env.CAIRN_TEST_NATS_URL = saved;
  });

  it('defaults to the local server and honours CAIRN_TEST_NATS_URL', () => {
    delete process.env.CAIRN_TEST_NATS_URL;
    expect(testNatsUrl()).toBe('nats://127.0.0.1:4222');
    process.env.CAIRN_TEST_NATS_URL = 'nats://nats.test:4333';
    expect(testNatsUrl()).toBe('nats://nats.test:4333');
  });
});
