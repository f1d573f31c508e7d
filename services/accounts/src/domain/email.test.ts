import { Code } from '@cairn/rpc';
import { emailError } from './email';

describe('emailError', () => {
  it.each(['a@b.c', 'first.last+tag@example.com', "o'neil@example.org", 'x@localhost', 'UP@Example.COM'])('accepts %s', (email) => {
    expect(emailError(email)).toBeUndefined();
  });

  it('rejects an empty address', () => {
    expect(emailError('')).toMatchObject({ code: Code.INVALID_ARGUMENT, message: 'e-mail invalid [email: ]', reason: 'email_invalid' });
  });

  it.each(['no-at-sign', 'a b@c.d', 'a@-bad.com', 'a@b_c.com', 'ä@b.c', 'a@b.c '])('rejects unsupported characters in %j', (email) => {
    expect(emailError(email)).toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: `e-mail address contains unsupported character [email: ${email}]`,
      reason: 'email_invalid',
    });
  });

  it.each(['-a@b.c', '@b.c', '.a@b.c', 'a.@b.c', 'a..b@c.d', 'a,b@c.d'])('rejects malformed %j', (email) => {
    expect(emailError(email)).toMatchObject({ message: `e-mail invalid [email: ${email}]`, reason: 'email_invalid' });
  });
});
