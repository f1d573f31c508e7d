import { checkTokenScopes, grantsScope, requiredScopes, scopeLevelFor } from './scopes';

describe('scope levels', () => {
  it('GET and HEAD read, everything else writes', () => {
    expect(scopeLevelFor('GET')).toBe('read');
    expect(scopeLevelFor('head')).toBe('read');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(scopeLevelFor(method)).toBe('write');
  });
  it('names the required scopes', () => {
    expect(requiredScopes('GET', ['user'])).toEqual(['read:user']);
    expect(requiredScopes('DELETE', ['user', 'organization'])).toEqual(['write:user', 'write:organization']);
  });
});

describe('grantsScope', () => {
  it('grants the exact scope', () => {
    expect(grantsScope(['read:user'], 'read:user')).toBe(true);
  });
  it('lets write imply read, not the reverse', () => {
    expect(grantsScope(['write:user'], 'read:user')).toBe(true);
    expect(grantsScope(['read:user'], 'write:user')).toBe(false);
  });
  it('lets all grant everything', () => {
    expect(grantsScope(['all'], 'write:admin')).toBe(true);
    expect(grantsScope(['public-only', 'all'], 'read:issue')).toBe(true);
  });
  it('does not mix categories', () => {
    expect(grantsScope(['write:repository'], 'read:user')).toBe(false);
    expect(grantsScope(['public-only'], 'read:user')).toBe(false);
  });
  it('reads comma-joined scope strings', () => {
    expect(grantsScope(['read:issue,write:user'], 'write:user')).toBe(true);
  });
});

describe('checkTokenScopes', () => {
  it('allows a token with the scope', () => {
    expect(checkTokenScopes(['write:user'], 'POST', ['user'])).toEqual({ allowed: true });
  });
  it("refuses with Gitea's message", () => {
    expect(checkTokenScopes(['read:user'], 'POST', ['user'])).toEqual({
      allowed: false,
      message: 'token does not have at least one of required scope(s), required=[write:user], token scope=read:user',
    });
  });
  it('needs every category and lists them all', () => {
    const check = checkTokenScopes(['read:user', 'write:issue'], 'GET', ['user', 'organization']);
    expect(check).toEqual({
      allowed: false,
      message:
        'token does not have at least one of required scope(s), required=[read:user read:organization], token scope=read:user,write:issue',
    });
  });
});
