import type { IncomingMessage } from 'node:http';
import { createClientAddressOf } from './client-address';

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  // Only the two fields the function reads.
  return { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
}

describe('createClientAddressOf', () => {
  const gitea = createClientAddressOf(['127.0.0.0/8', '::1/128']);

  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(gitea(request('203.0.113.9', '198.51.100.1'))).toBe('203.0.113.9');
    expect(gitea(request('::ffff:203.0.113.9'))).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For from the right past trusted proxies when the peer is one', () => {
    expect(gitea(request('127.0.0.1', '198.51.100.1'))).toBe('198.51.100.1');
    expect(gitea(request('::ffff:127.0.0.1', '198.51.100.1, 198.51.100.2, 127.0.0.5'))).toBe('198.51.100.2');
    expect(gitea(request('::1', '127.0.0.2, 127.0.0.3'))).toBe('127.0.0.2');
  });

  it('keeps the peer for a missing or unparsable header', () => {
    expect(gitea(request('127.0.0.1'))).toBe('127.0.0.1');
    expect(gitea(request('127.0.0.1', 'unknown, 198.51.100.1'))).toBe('127.0.0.1');
  });

  it('trusts bare addresses, ranges and *', () => {
    expect(createClientAddressOf(['10.1.2.3'])(request('10.1.2.3', '198.51.100.1'))).toBe('198.51.100.1');
    expect(createClientAddressOf(['10.1.2.3'])(request('10.1.2.4', '198.51.100.1'))).toBe('10.1.2.4');
    expect(createClientAddressOf(['fd00::/8'])(request('fd12::1', '2001:db8::1'))).toBe('2001:db8::1');
    expect(createClientAddressOf(['*'])(request('203.0.113.9', '198.51.100.1'))).toBe('198.51.100.1');
  });
});
