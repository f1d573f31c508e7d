import { Code } from '@cairn/rpc';
import { assertPasswordLength, burnPasswordCheck, hashPassword, verifyPassword } from './password';

describe('assertPasswordLength', () => {
  it('accepts a password of the minimum length', () => {
    expect(() => assertPasswordLength('12345678', 8)).not.toThrow();
  });

  it('rejects a shorter one with the configured minimum in the message', () => {
    expect(() => assertPasswordLength('1234567', 8)).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'password must be at least 8 characters', reason: 'password_too_short' }),
    );
    expect(() => assertPasswordLength('123456789', 10)).toThrow('password must be at least 10 characters');
  });

  it('counts characters, not UTF-16 units or bytes', () => {
    expect(() => assertPasswordLength('🔑🔑🔑🔑', 4)).not.toThrow();
    expect(() => assertPasswordLength('🔑🔑🔑', 4)).toThrow();
  });
});

describe('hashPassword / verifyPassword', () => {
  it('encodes scheme, parameters, salt and hash', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(hash).not.toContain('correct horse');
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('verifies the right password and rejects a wrong one', async () => {
    const hash = await hashPassword('s3cret-pass');
    await expect(verifyPassword('s3cret-pass', hash)).resolves.toBe(true);
    await expect(verifyPassword('s3cret-pasS', hash)).resolves.toBe(false);
    await expect(verifyPassword('', hash)).resolves.toBe(false);
  });

  it('verifies with the parameters stored in the hash', async () => {
    const hash = await hashPassword('pw');
    const tampered = hash.replace(/^scrypt\$16384/, 'scrypt$1024');
    await expect(verifyPassword('pw', tampered)).resolves.toBe(false);
    await expect(verifyPassword('pw', hash)).resolves.toBe(true);
  });

  it('never matches an empty or foreign hash', async () => {
    await expect(verifyPassword('', '')).resolves.toBe(false);
    await expect(verifyPassword('x', 'pbkdf2$50000$50$abc$def')).resolves.toBe(false);
  });

  it('burns a check without throwing', async () => {
    await expect(burnPasswordCheck('anything')).resolves.toBeUndefined();
  });
});
