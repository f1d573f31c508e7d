import { classify } from './ip-classes';
import { parseHostMatchList } from './host-match';

const list = (...entries: string[]) => parseHostMatchList('webhook.ALLOWED_HOST_LIST', entries);

describe('address classes (Gitea hostmatcher builtins)', () => {
  it.each([
    ['8.8.8.8', { loopback: false, private: false, external: true }],
    ['2606:4700::1111', { loopback: false, private: false, external: true }],
    ['127.0.0.1', { loopback: true, private: false, external: false }],
    ['127.9.9.9', { loopback: true, private: false, external: false }],
    ['::1', { loopback: true, private: false, external: false }],
    ['::ffff:127.0.0.1', { loopback: true, private: false, external: false }],
    ['10.1.2.3', { loopback: false, private: true, external: false }],
    ['172.31.255.1', { loopback: false, private: true, external: false }],
    ['192.168.0.10', { loopback: false, private: true, external: false }],
    ['::ffff:192.168.0.10', { loopback: false, private: true, external: false }],
    ['fd12::1', { loopback: false, private: true, external: false }],
    ['169.254.169.254', { loopback: false, private: false, external: false }],
    ['fe80::1', { loopback: false, private: false, external: false }],
    ['0.0.0.0', { loopback: false, private: false, external: false }],
    ['0.1.2.3', { loopback: false, private: false, external: false }],
    ['100.64.0.1', { loopback: false, private: false, external: false }],
    ['192.0.2.1', { loopback: false, private: false, external: false }],
    ['2001:db8::1', { loopback: false, private: false, external: false }],
    ['224.0.0.1', { loopback: false, private: false, external: false }],
    ['255.255.255.255', { loopback: false, private: false, external: false }],
    ['not-an-address', { loopback: false, private: false, external: false }],
  ])('%s', (address, classes) => {
    expect(classify(address)).toEqual(classes);
  });
});

describe('parseHostMatchList', () => {
  it('matches builtins, CIDRs and patterns, case-insensitively, ignoring ports', () => {
    const allowed = list(' External ', '10.0.0.0/8', '*.Example.com', 'git?.corp');
    expect(allowed.empty).toBe(false);
    expect(allowed.matchAddress('8.8.8.8')).toBe(true);
    expect(allowed.matchAddress('10.20.30.40')).toBe(true);
    expect(allowed.matchAddress('192.168.1.1')).toBe(false);
    expect(allowed.matchHostName('API.example.COM:8443')).toBe(true);
    expect(allowed.matchHostName('example.com')).toBe(false);
    expect(allowed.matchHostName('git1.corp')).toBe(true);
    expect(allowed.matchHostName('git12.corp')).toBe(false);
    // An address literal as the host is an address.
    expect(allowed.matchHostName('[::ffff:10.0.0.1]:80')).toBe(true);
    expect(allowed.matchHostName('127.0.0.1')).toBe(false);
  });

  it('lets the requested name or the connected address through (MatchHostOrIP)', () => {
    const allowed = list('hooks.internal');
    expect(allowed.matchHostOrAddress('hooks.internal', '10.0.0.5')).toBe(true);
    expect(allowed.matchHostOrAddress('other.internal', '10.0.0.5')).toBe(false);
    expect(list('10.0.0.5').matchHostOrAddress('other.internal', '10.0.0.5')).toBe(true);
  });

  it('matches everything with `*` and nothing when empty', () => {
    expect(list('*').matchHostOrAddress('anything.example', '127.0.0.1')).toBe(true);
    const none = list('', ' ');
    expect(none.empty).toBe(true);
    expect(none.matchHostOrAddress('example.com', '8.8.8.8')).toBe(false);
  });

  it('takes an entry that is no CIDR as a pattern, and runs hostile patterns in linear time', () => {
    expect(list('10.0.0.0/99').matchAddress('10.0.0.1')).toBe(false);
    const hostile = list(`${'*a'.repeat(40)}*b`);
    const started = process.hrtime.bigint();
    expect(hostile.matchHostName('a'.repeat(5000))).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2000);
  });
});
