import { parseBoolean, parseDuration, parseHost, parseHostPort, parseInteger, parseList, parseTrustedProxies, parseUrl } from './values';

describe('parseBoolean', () => {
  it.each(['true', 'TRUE', 'True', '1', 'yes', 'YES', 'on', 'On', 't', 'y'])('%s is true', (text) => {
    expect(parseBoolean(text)).toBe(true);
  });
  it.each(['false', 'FALSE', '0', 'no', 'No', 'off', 'OFF', 'f', 'n'])('%s is false', (text) => {
    expect(parseBoolean(text)).toBe(false);
  });
  it.each(['', 'maybe', '2', 'truee', 'expensive'])('%s is rejected', (text) => {
    expect(parseBoolean(text)).toBeUndefined();
  });
});

describe('parseInteger', () => {
  it('reads decimal integers with an optional sign', () => {
    expect(parseInteger('3000')).toBe(3000);
    expect(parseInteger(' 42 ')).toBe(42);
    expect(parseInteger('-1')).toBe(-1);
    expect(parseInteger('+7')).toBe(7);
  });
  it.each(['abc', '1.5', '1e3', '0x10', '', '12abc', '99999999999999999999'])('rejects %s', (text) => {
    expect(parseInteger(text)).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['90s', 90_000],
    ['10m', 600_000],
    ['8h', 28_800_000],
    ['1h30m', 5_400_000],
    ['8h0m0s', 28_800_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['1500us', 2],
    ['2µs', 0],
    ['1m0.5s', 60_500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  it.each(['', '5', '10 m', '-10m', '1d', 'h', 'abc', '10m5'])('rejects %s', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
  it('reads a bare number as seconds when asked (Gitea MustDuration)', () => {
    expect(parseDuration('3600', { bareSeconds: true })).toBe(3_600_000);
    expect(parseDuration('2h', { bareSeconds: true })).toBe(7_200_000);
  });
});

describe('parseList', () => {
  it('splits on commas, trims and drops empty items', () => {
    expect(parseList(' a, b ,,c , ')).toEqual(['a', 'b', 'c']);
    expect(parseList('')).toEqual([]);
    expect(parseList(' , ')).toEqual([]);
  });
});

describe('parseHostPort', () => {
  it('reads host:port', () => {
    expect(parseHostPort('127.0.0.1:50051')).toEqual({ host: '127.0.0.1', port: 50051 });
    expect(parseHostPort('accounts.internal:0')).toEqual({ host: 'accounts.internal', port: 0 });
    expect(parseHostPort('[::1]:65535')).toEqual({ host: '[::1]', port: 65535 });
  });
  it.each(['127.0.0.1', ':50051', 'host:65536', 'host:port', '::1:50051', 'a b:1', 'host:-1', ''])('rejects %s', (text) => {
    expect(parseHostPort(text)).toBeUndefined();
  });
});

describe('parseHost', () => {
  it('accepts names and addresses, bracketing IPv6', () => {
    expect(parseHost('git.example.com')).toBe('git.example.com');
    expect(parseHost('10.0.0.1')).toBe('10.0.0.1');
    expect(parseHost('::1')).toBe('[::1]');
    expect(parseHost('[::1]')).toBe('[::1]');
  });
  it.each(['a/b', 'a b', 'user@host', ''])('rejects %s', (text) => {
    expect(parseHost(text)).toBeUndefined();
  });
});

describe('parseUrl', () => {
  it('accepts only the listed schemes', () => {
    expect(parseUrl('nats://127.0.0.1:4222', ['nats:'])?.port).toBe('4222');
    expect(parseUrl('http://x', ['nats:'])).toBeUndefined();
    expect(parseUrl('not a url', ['nats:'])).toBeUndefined();
  });
});

describe('parseTrustedProxies', () => {
  it('reads addresses, CIDR ranges and * as written', () => {
    expect(parseTrustedProxies('127.0.0.0/8, ::1/128')).toEqual(['127.0.0.0/8', '::1/128']);
    expect(parseTrustedProxies('10.1.2.3,fd00::/8')).toEqual(['10.1.2.3', 'fd00::/8']);
    expect(parseTrustedProxies('*')).toEqual(['*']);
  });
  it.each(['', ',', 'proxy.local', '10.0.0.0/33', '::/129', '10.0.0.0/8/1', '10.0.0.0/x'])('%s is rejected', (text) => {
    expect(parseTrustedProxies(text)).toBeUndefined();
  });
});
