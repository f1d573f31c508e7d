import { Code } from '@cairn/rpc';
import { isValidUsername, usernameError } from './username';

describe('isValidUsername', () => {
  it.each(['a', 'user1', 'User_Name', 'a.b-c_d', '1abc', 'ab.keys2'])('accepts %s', (name) => {
    expect(isValidUsername(name)).toBe(true);
  });

  it.each(['', '-abc', '_abc', '.abc', 'abc-', 'abc.', 'a..b', 'a-_b', 'a b', 'ä', 'a/b', 'a@b'])('rejects %j', (name) => {
    expect(isValidUsername(name)).toBe(false);
  });
});

describe('usernameError', () => {
  it('accepts an ordinary name', () => {
    expect(usernameError('alice')).toBeUndefined();
  });

  it('rejects an empty name', () => {
    expect(usernameError('  ')).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'name is empty', reason: 'name_invalid' });
  });

  it('rejects bad characters with Gitea message', () => {
    expect(usernameError('bad name')).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: 'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters',
      reason: 'name_invalid',
    });
  });

  it('limits the length to 40', () => {
    expect(usernameError('a'.repeat(40))).toBeUndefined();
    expect(usernameError('a'.repeat(41))).toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'name_invalid' });
  });

  it.each(['admin', 'Admin', 'API', 'assets', 'user', 'login', 'explore', 'org', 'repo', 'ghost', 'favicon.ico', 'v2'])(
    'reserves %s',
    (name) => {
      expect(usernameError(name)).toMatchObject({
        code: Code.INVALID_ARGUMENT,
        message: `name is reserved [name: ${name.toLowerCase()}]`,
        reason: 'name_reserved',
      });
    },
  );

  it('rejects reserved names that are not even valid characters as invalid, as Gitea checks characters first', () => {
    expect(usernameError('.well-known')).toMatchObject({ reason: 'name_invalid' });
    expect(usernameError('..')).toMatchObject({ reason: 'name_invalid' });
  });

  it.each([
    ['admin.keys', '*.keys'],
    ['bob.GPG', '*.gpg'],
    ['x.rss', '*.rss'],
    ['x.atom', '*.atom'],
    ['x.png', '*.png'],
  ])('refuses %s by pattern %s', (name, pattern) => {
    expect(usernameError(name)).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: `name pattern is not allowed [pattern: ${pattern}]`,
      reason: 'name_reserved',
    });
  });
});
