import { Code } from '@cairn/rpc';
import { normalizeScopes } from './scopes';

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
