import { parseGoQuery } from '@cairn/http';
import { hasQueryToken, parseAuthorization, readCredentials } from './credentials';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('parseAuthorization', () => {
  it('reads token and bearer in any case', () => {
    expect(parseAuthorization('token abc')).toEqual({ kind: 'token', token: 'abc' });
    expect(parseAuthorization('BEARER abc')).toEqual({ kind: 'token', token: 'abc' });
  });
  it('reads basic, splitting at the first colon', () => {
    expect(parseAuthorization(`Basic ${b64('alice:pa:ss')}`)).toEqual({ kind: 'basic', username: 'alice', password: 'pa:ss' });
    expect(parseAuthorization(`basic ${b64('tok:')}`)).toEqual({ kind: 'basic', username: 'tok', password: '' });
  });
  it('rejects anything else', () => {
    expect(parseAuthorization('token')).toBeUndefined();
    expect(parseAuthorization('token a b')).toBeUndefined();
    expect(parseAuthorization('Digest abc')).toBeUndefined();
    expect(parseAuthorization(`Basic ${b64('no-colon')}`)).toBeUndefined();
    expect(parseAuthorization('Basic not*base64')).toBeUndefined();
    expect(parseAuthorization('Basic YWxpY2U6cA')).toBeUndefined(); // unpadded
  });
});

describe('readCredentials', () => {
  const read = (query: string, authorization?: string, disableQueryAuthToken = false) =>
    readCredentials({ authorization, query: parseGoQuery(query), disableQueryAuthToken });

  it('prefers token, then access_token, then the header', () => {
    expect(read('token=a&access_token=b', 'token c')).toEqual({ kind: 'token', token: 'a' });
    expect(read('access_token=b', 'token c')).toEqual({ kind: 'token', token: 'b' });
    expect(read('token=', 'token c')).toEqual({ kind: 'token', token: 'c' });
  });
  it('ignores query tokens when they are disabled', () => {
    expect(read('token=a', undefined, true)).toEqual({ kind: 'none' });
    expect(read('token=a', `Basic ${b64('u:p')}`, true)).toEqual({ kind: 'basic', username: 'u', password: 'p' });
  });
  it('is none without credentials', () => {
    expect(read('')).toEqual({ kind: 'none' });
  });
  it('knows when the query carries a token', () => {
    expect(hasQueryToken(parseGoQuery('access_token=x'))).toBe(true);
    expect(hasQueryToken(parseGoQuery('token='))).toBe(false);
  });
});
