import { HttpError, errorBody, isHttpError, notFoundBody, swaggerUrl } from './errors';

const ROOT = 'https://git.example.com/';

describe('Gitea error bodies', () => {
  it('points url at the API description', () => {
    expect(swaggerUrl(ROOT)).toBe('https://git.example.com/api/swagger');
    expect(errorBody(ROOT, 'boom')).toEqual({ message: 'boom', url: 'https://git.example.com/api/swagger' });
  });
  it('has errors null in a bare not-found body', () => {
    expect(notFoundBody(ROOT)).toEqual({ errors: null, message: 'not found', url: `${ROOT}api/swagger` });
    expect(notFoundBody(ROOT, 'gone', ['x'])).toEqual({ errors: ['x'], message: 'gone', url: `${ROOT}api/swagger` });
  });
});

describe('HttpError', () => {
  it('renders the default body', () => {
    const error = HttpError.forbidden('user should be the site admin');
    expect(error.status).toBe(403);
    expect(error.body(ROOT)).toEqual({ message: 'user should be the site admin', url: `${ROOT}api/swagger` });
    expect(isHttpError(error)).toBe(true);
    expect(isHttpError(new Error('x'))).toBe(false);
  });
  it('renders the not-found body', () => {
    expect(HttpError.notFound().body(ROOT)).toEqual({ errors: null, message: 'not found', url: `${ROOT}api/swagger` });
    expect(HttpError.notFound('not found', ['user does not exist']).body(ROOT)).toEqual({
      errors: ['user does not exist'],
      message: 'not found',
      url: `${ROOT}api/swagger`,
    });
  });
  it('renders a message-only body without url', () => {
    expect(HttpError.messageOnly(403, 'Only administrators allowed to sudo.').body(ROOT)).toEqual({
      message: 'Only administrators allowed to sudo.',
    });
  });
  it('has the usual statuses', () => {
    expect(HttpError.badRequest('a').status).toBe(400);
    expect(HttpError.unauthorized('a').status).toBe(401);
    expect(HttpError.unprocessable('a').status).toBe(422);
  });
});
