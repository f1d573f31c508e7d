import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { userForViewer } from './user-view';
import { ANONYMOUS, type Viewer } from './visibility-rules';

const NO_REPLY = 'noreply.example.org';
const OWNER_ID = 40;

function user(fields: Partial<User> = {}): User {
  return {
    id: OWNER_ID,
    login: 'Dana',
    loginName: 'dana-ldap',
    sourceId: 2,
    fullName: 'Dana D.',
    email: 'dana@example.com',
    language: 'de-DE',
    isAdmin: true,
    lastLogin: new Date('2024-05-06T07:08:09Z'),
    created: new Date('2024-01-01T00:00:00Z'),
    restricted: false,
    active: true,
    prohibitLogin: false,
    location: 'Bern',
    website: 'https://dana.example',
    description: 'bio',
    visibility: 'public',
    mustChangePassword: true,
    maxRepoCreation: 5,
    allowGitHook: true,
    allowImportLocal: true,
    allowCreateOrganization: true,
    updated: new Date('2024-02-02T00:00:00Z'),
    type: 0,
    keepEmailPrivate: false,
    keepActivityPrivate: true,
    theme: 'gitea-dark',
    diffViewStyle: 'split',
    emailNotificationsPreference: 'onmention',
    ...fields,
  };
}

const viewers: Record<string, Viewer> = {
  anonymous: ANONYMOUS,
  plain: { id: 2, isAdmin: false, isRestricted: false },
  restricted: { id: 3, isAdmin: false, isRestricted: true },
  admin: { id: 4, isAdmin: true, isRestricted: false },
  self: { id: OWNER_ID, isAdmin: false, isRestricted: false },
};

const REAL = 'dana@example.com';
const PLACEHOLDER = `${OWNER_ID}+dana@${NO_REPLY}`;

describe('userForViewer: e-mail', () => {
  // viewer → [e-mail shown when the user shows it, e-mail shown when the user hides it]
  const matrix: Record<string, [string, string]> = {
    anonymous: [PLACEHOLDER, PLACEHOLDER],
    plain: [REAL, PLACEHOLDER],
    restricted: [REAL, PLACEHOLDER],
    admin: [REAL, REAL],
    self: [REAL, REAL],
  };
  it.each(Object.entries(matrix))('%s', (name, [shown, hidden]) => {
    expect(userForViewer(user({ keepEmailPrivate: false }), viewers[name], NO_REPLY).email).toBe(shown);
    expect(userForViewer(user({ keepEmailPrivate: true }), viewers[name], NO_REPLY).email).toBe(hidden);
  });
});

describe('userForViewer: account details and settings', () => {
  it.each(['self', 'admin'])('are all there for %s', (name) => {
    expect(userForViewer(user(), viewers[name], NO_REPLY)).toEqual(user());
  });

  it.each(['anonymous', 'plain', 'restricted'])('are blank for %s, the public profile stays', (name) => {
    const shaped = userForViewer(user(), viewers[name], NO_REPLY);
    expect(shaped).toEqual({
      ...user(),
      email: name === 'anonymous' ? PLACEHOLDER : REAL,
      loginName: '',
      sourceId: 0,
      language: '',
      isAdmin: false,
      lastLogin: new Date(0),
      active: false,
      prohibitLogin: false,
      mustChangePassword: false,
      maxRepoCreation: -1,
      allowGitHook: false,
      allowImportLocal: false,
      allowCreateOrganization: false,
      theme: '',
      diffViewStyle: '',
      emailNotificationsPreference: '',
      updated: undefined,
    });
    // What Gitea shows everyone: name, profile, restricted flag, visibility, and whether activity is hidden.
    expect(shaped).toMatchObject({ login: 'Dana', fullName: 'Dana D.', location: 'Bern', restricted: false, keepActivityPrivate: true });
  });
});
