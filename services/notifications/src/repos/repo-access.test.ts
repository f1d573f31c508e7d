import { ALL_REPOS, NO_REPOS } from '../domain/activity-visibility';
import { ANONYMOUS, type Viewer } from '../domain/viewer';
import { INTERIM_REPO_ACCESS } from './repo-access';

const OWNER_ID = 7;
const PUBLIC_REPOS = { kind: 'repos', publicRepos: true, repoIds: [] };

describe('INTERIM_REPO_ACCESS (until the repos service answers)', () => {
  it.each<[string, Viewer, unknown]>([
    ['anonymous: repositories public at the time', ANONYMOUS, PUBLIC_REPOS],
    ['self: every repository', { id: OWNER_ID, isAdmin: false, isRestricted: false }, ALL_REPOS],
    ['restricted self: every repository', { id: OWNER_ID, isAdmin: false, isRestricted: true }, ALL_REPOS],
    ['another user: repositories public at the time', { id: 8, isAdmin: false, isRestricted: false }, PUBLIC_REPOS],
    ['a restricted user: none (nothing can be granted yet)', { id: 9, isAdmin: false, isRestricted: true }, NO_REPOS],
  ])('%s', async (_what, viewer, expected) => {
    expect(await INTERIM_REPO_ACCESS.readableRepos(viewer, OWNER_ID)).toEqual(expected);
  });
});
