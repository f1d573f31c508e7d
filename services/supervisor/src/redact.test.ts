import { withoutPassword } from './redact';

describe('withoutPassword', () => {
  it('hides the password of a URL and leaves the rest', () => {
    expect(withoutPassword('postgres://cairn:s3cret@127.0.0.1:5999/cairn')).toBe('postgres://cairn:***@127.0.0.1:5999/cairn');
    expect(withoutPassword('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
    expect(withoutPassword('not a url')).toBe('not a url');
  });
});
