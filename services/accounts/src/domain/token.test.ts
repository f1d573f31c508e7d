import { createHash } from 'node:crypto';
import { generateTokenSecret, hashTokenSecret, isTokenSecretShape, tokenLastEight } from './token';

describe('token secrets', () => {
  it('are 40 lowercase hex characters and differ each time', () => {
    const a = generateTokenSecret();
    const b = generateTokenSecret();
    expect(a).toMatch(/^[0-9a-f]{40}$/);
    expect(a).not.toBe(b);
    expect(isTokenSecretShape(a)).toBe(true);
  });

  it('rejects other shapes', () => {
    expect(isTokenSecretShape('')).toBe(false);
    expect(isTokenSecretShape('A'.repeat(40))).toBe(false);
    expect(isTokenSecretShape('a'.repeat(39))).toBe(false);
    expect(isTokenSecretShape('header.payload.signature')).toBe(false);
  });

  it('hashes with SHA-256 hex', () => {
    const secret = 'a'.repeat(40);
    expect(hashTokenSecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashTokenSecret(secret)).toHaveLength(64);
  });

  it('keeps the last eight characters for display', () => {
    expect(tokenLastEight('0123456789abcdef0123456789abcdef01234567')).toBe('01234567');
  });
});
