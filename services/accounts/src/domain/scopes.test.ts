import { Code } from '@cairn/rpc';
import { normalizeScopes, requireScopesWithin } from './scopes';

describe('normalizeScopes', () => {
  it('dedupes and orders by Gitea category order', () => {
    expect(normalizeScopes(['read:user', 'write:repository', 'read:user', 'read:admin'])).toEqual([
      'read:admin',
      'write:repository',
      'read:user',
    ]);
  });

  it('lets write imply read', () => {
    expect(normalizeScopes(['read:issue', 'write:issue'])).toEqual(['write:issue']);
  });

  it('lets all absorb every category, keeping public-only first', () => {
    expect(normalizeScopes(['read:user', 'all', 'write:issue'])).toEqual(['all']);
    expect(normalizeScopes(['all', 'public-only'])).toEqual(['public-only', 'all']);
  });

  it('turns write on every category into all', () => {
    const everything = ['activitypub', 'admin', 'misc', 'notification', 'organization', 'package', 'issue', 'repository', 'user'].map(
      (c) => `write:${c}`,
    );
    expect(normalizeScopes(everything)).toEqual(['all']);
    expect(normalizeScopes(everything.slice(1))).toEqual(everything.slice(1));
  });

  it('splits comma-joined entries and skips empty ones, as Gitea does', () => {
    expect(normalizeScopes(['read:user,read:issue', ''])).toEqual(['read:issue', 'read:user']);
  });

  it('keeps public-only alone', () => {
    expect(normalizeScopes(['public-only'])).toEqual(['public-only']);
  });

  it('requires a scope', () => {
    for (const scopes of [[], [''], [',']]) {
      expect(() => normalizeScopes(scopes)).toThrow(
        expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: 'access token must have a scope', reason: 'token_scope' }),
      );
    }
  });

  it.each(['read:nothing', 'delete:user', 'READ:user', 'sudo', 'read:'])('rejects %j', (scope) => {
    expect(() => normalizeScopes(['read:user', scope])).toThrow(
      expect.objectContaining({
        code: Code.INVALID_ARGUMENT,
        message: `invalid access token scope provided: invalid access token scope: ${scope}`,
        reason: 'token_scope',
      }),
    );
  });
});

describe('requireScopesWithin', () => {
  const refusal = (requested: string[], limit: string[]) => {
    try {
      requireScopesWithin(requested, limit);
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('allows equal or narrower scopes: write covers read, all covers every category', () => {
    expect(refusal(['write:user'], ['write:user'])).toBeUndefined();
    expect(refusal(['read:user'], ['write:user'])).toBeUndefined();
    expect(refusal(['write:issue', 'read:admin'], ['all'])).toBeUndefined();
    expect(refusal(['all'], ['all'])).toBeUndefined();
    expect(refusal(['public-only', 'read:user'], ['write:user'])).toBeUndefined();
  });

  it('refuses wider scopes with PERMISSION_DENIED', () => {
    expect(refusal(['all'], ['write:user'])).toMatchObject({
      code: Code.PERMISSION_DENIED,
      reason: 'token_scope_exceeded',
      message: 'token scope exceeds the scope of the token used to create it, requested=[all], token scope=write:user',
    });
    expect(refusal(['write:user'], ['read:user'])).toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(refusal(['write:user', 'read:repository'], ['write:user'])).toMatchObject({ code: Code.PERMISSION_DENIED });
  });

  it('keeps a public-only creator to public-only tokens', () => {
    expect(refusal(['read:user'], ['public-only', 'write:user'])).toMatchObject({ code: Code.PERMISSION_DENIED });
    expect(refusal(['public-only', 'read:user'], ['public-only', 'write:user'])).toBeUndefined();
  });
});
