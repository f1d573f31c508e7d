import { CairnError, Code } from '@cairn/rpc';
import { HttpError } from './errors';
import { INTERNAL_ERROR_MESSAGE, httpErrorFromCairn } from './status';

const ROOT = 'http://localhost:3000/';

describe('httpErrorFromCairn', () => {
  it('uses the shared table and keeps the message', () => {
    const error = httpErrorFromCairn(CairnError.invalid('name is reserved [name: api]', { reason: 'name_reserved' }));
    expect(error.status).toBe(422);
    expect(error.body(ROOT)).toEqual({ message: 'name is reserved [name: api]', url: `${ROOT}api/swagger` });
    expect(httpErrorFromCairn(CairnError.denied('no')).status).toBe(403);
    expect(httpErrorFromCairn(CairnError.unauthenticated('no')).status).toBe(401);
  });
  it('sends NOT_FOUND with the not-found body', () => {
    const error = httpErrorFromCairn(CairnError.notFound('user does not exist [uid: 0, name: x]'));
    expect(error.body(ROOT)).toEqual({
      errors: ['user does not exist [uid: 0, name: x]'],
      message: 'not found',
      url: `${ROOT}api/swagger`,
    });
  });
  it('applies code overrides', () => {
    const error = httpErrorFromCairn(CairnError.exists('access token name has been used already'), {
      codes: { [Code.ALREADY_EXISTS]: 400 },
    });
    expect(error.status).toBe(400);
    expect(error.message).toBe('access token name has been used already');
  });
  it('lets a reason win over the code', () => {
    const mapping = { codes: { [Code.INVALID_ARGUMENT]: 422 }, reasons: { password_too_short: 400 } };
    expect(httpErrorFromCairn(CairnError.invalid('short', { reason: 'password_too_short' }), mapping).status).toBe(400);
    expect(httpErrorFromCairn(CairnError.invalid('bad name', { reason: 'name_invalid' }), mapping).status).toBe(422);
  });
  it('lets a reason give the whole answer', () => {
    const error = httpErrorFromCairn(CairnError.notFound('token x', { reason: 'token_not_found' }), {
      reasons: { token_not_found: () => HttpError.notFound() },
    });
    expect(error.body(ROOT)).toEqual({ errors: null, message: 'not found', url: `${ROOT}api/swagger` });
  });
  it('answers 503 for an unavailable or slow service, with its message', () => {
    expect(httpErrorFromCairn(CairnError.unavailable('accounts is unavailable')).status).toBe(503);
    expect(httpErrorFromCairn(CairnError.unavailable('accounts is unavailable')).message).toBe('accounts is unavailable');
    expect(httpErrorFromCairn(new CairnError(Code.DEADLINE_EXCEEDED, 'deadline exceeded')).status).toBe(503);
  });
  it('hides the message of other server errors', () => {
    const error = httpErrorFromCairn(CairnError.internal('pq: relation "x" does not exist'));
    expect(error.status).toBe(500);
    expect(error.message).toBe(INTERNAL_ERROR_MESSAGE);
  });
});
