import { Code, CairnError } from '@cairn/rpc';
import { toAccountsError } from './errors';

/** What pg reports for a unique violation: SQLSTATE 23505 and the constraint (or unique index) name. */
function uniqueViolation(constraint: string): Error {
  return Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), { code: '23505', constraint });
}

describe('toAccountsError', () => {
  it('gives a racing duplicate name the message of the pre-check', () => {
    expect(toAccountsError(uniqueViolation('users_lower_name_key'), { name: 'Bob' })).toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'user already exists [name: Bob]',
      reason: 'user_exists',
    });
  });

  it('gives a racing duplicate email the message of the pre-check', () => {
    expect(toAccountsError(uniqueViolation('users_lower_email_key'), { email: 'b@x.org' })).toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'e-mail already in use [email: b@x.org]',
      reason: 'email_used',
    });
  });

  it('gives a racing duplicate token name its message', () => {
    expect(toAccountsError(uniqueViolation('access_tokens_user_id_name_key'))).toMatchObject({
      code: Code.ALREADY_EXISTS,
      message: 'access token name has been used already',
      reason: 'token_name_used',
    });
  });

  it('passes CairnErrors through and maps everything else through @cairn/db', () => {
    const own = CairnError.notFound('gone');
    expect(toAccountsError(own)).toBe(own);
    expect(toAccountsError(new Error('boom'))).toMatchObject({ code: Code.INTERNAL });
  });
});
