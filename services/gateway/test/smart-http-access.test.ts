/** The smart HTTP access decision on its own: Gitea's httpBase order, for each kind of caller and repository. */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { Caller } from '../src/auth/caller';
import {
  ACCOUNT_DISABLED,
  ARCHIVED_PUSH,
  CREDENTIALS_NEEDED,
  MIRROR_PUSH,
  PUSH_DENIED,
  REPOSITORY_NOT_FOUND,
  TOKEN_FORBIDDEN,
  type GitService,
  gitAccessRefusal,
} from '../src/git/access';
import { permission, repository } from './support/fake-git-hosting';

const user = { id: 7, login: 'u', active: true, prohibitLogin: false } as User;
const anonymous: Caller = { user: undefined, isBasicAuth: false, tokenScopes: undefined };
const signedIn: Caller = { user, isBasicAuth: true, tokenScopes: undefined };
const withToken = (...scopes: string[]): Caller => ({ user, isBasicAuth: true, tokenScopes: scopes });

function decide(service: GitService, caller: Caller, repo: { fields?: Parameters<typeof repository>[0]; mode?: Parameters<typeof permission>[0] } | undefined, requireSigninView = false) {
  return gitAccessRefusal({
    service,
    caller,
    repo: repo === undefined ? undefined : { repository: repository({ id: 1, ...repo.fields }), permission: permission(repo.mode ?? 'read') },
    requireSigninView,
  });
}

describe('gitAccessRefusal', () => {
  it('fetches public repositories of public owners without credentials, unless the site requires signing in', () => {
    expect(decide('upload-pack', anonymous, {})).toBeUndefined();
    expect(decide('upload-pack', anonymous, {}, true)).toBe(CREDENTIALS_NEEDED);
    expect(decide('upload-pack', anonymous, { fields: { ownerVisibility: 'limited' } })).toBe(CREDENTIALS_NEEDED);
  });

  it('asks anonymous callers for credentials for anything else, and for repositories it cannot show them', () => {
    expect(decide('receive-pack', anonymous, {})).toBe(CREDENTIALS_NEEDED);
    expect(decide('upload-pack', anonymous, { fields: { private: true } })).toBe(CREDENTIALS_NEEDED);
    expect(decide('upload-pack', anonymous, undefined)).toBe(CREDENTIALS_NEEDED);
  });

  it('hides what a signed-in caller may not read', () => {
    expect(decide('upload-pack', signedIn, undefined)).toBe(REPOSITORY_NOT_FOUND);
    expect(decide('upload-pack', signedIn, { fields: { private: true, units: [] }, mode: 'owner' })).toBe(REPOSITORY_NOT_FOUND);
  });

  it('checks token scopes on what needs credentials: read to fetch, write to push; public-only stays public', () => {
    expect(decide('upload-pack', withToken('read:repository'), { fields: { private: true } })).toBeUndefined();
    expect(decide('upload-pack', withToken('read:issue'), { fields: { private: true } })).toBe(TOKEN_FORBIDDEN);
    expect(decide('receive-pack', withToken('read:repository'), { mode: 'write' })).toBe(TOKEN_FORBIDDEN);
    expect(decide('receive-pack', withToken('write:repository'), { mode: 'write' })).toBeUndefined();
    expect(decide('receive-pack', withToken('all'), { mode: 'write' })).toBeUndefined();
    expect(decide('upload-pack', withToken('public-only', 'read:repository'), { fields: { private: true } })).toBe(TOKEN_FORBIDDEN);
    // A public fetch needs no scope at all.
    expect(decide('upload-pack', withToken('read:issue'), {})).toBeUndefined();
  });

  it('refuses pushes without code write, to archived and mirror repositories, and by disabled accounts', () => {
    expect(decide('receive-pack', signedIn, { mode: 'read' })).toBe(PUSH_DENIED);
    expect(decide('receive-pack', signedIn, { mode: 'write' })).toBeUndefined();
    expect(decide('receive-pack', signedIn, { fields: { archived: true }, mode: 'owner' })).toBe(ARCHIVED_PUSH);
    expect(decide('receive-pack', signedIn, { fields: { mirror: true }, mode: 'owner' })).toBe(MIRROR_PUSH);
    const disabled: Caller = { ...signedIn, user: { ...user, prohibitLogin: true } };
    expect(decide('receive-pack', disabled, { mode: 'owner' })).toBe(ACCOUNT_DISABLED);
    expect(decide('upload-pack', disabled, { fields: { private: true }, mode: 'owner' })).toBe(ACCOUNT_DISABLED);
  });
});
