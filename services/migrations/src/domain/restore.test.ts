import { restoreOptions } from './restore';

describe('restoreOptions', () => {
  const repo = { isPrivate: true, description: 'd' };
  it('takes every unit when none is named (Gitea: empty means all)', () => {
    expect(restoreOptions([], repo)).toMatchObject({ issues: true, comments: true, labels: true, milestones: true, releases: true, release_assets: true, pull_requests: true, private: true });
  });
  it('takes only the named units, case-insensitively', () => {
    expect(restoreOptions(['Issues', 'labels'], repo)).toMatchObject({ issues: true, labels: true, comments: false, milestones: false, releases: false });
  });
  it('refuses an unknown unit as Gitea does', () => {
    expect(() => restoreOptions(['issues', 'wikis'], repo)).toThrow('invalid unit: wikis');
  });
});
