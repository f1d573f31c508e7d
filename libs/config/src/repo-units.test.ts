import { BUILTIN_DEFAULT_REPO_UNITS, resolveRepoUnits } from './repo-units';

describe('resolveRepoUnits', () => {
  it('uses the builtin defaults when nothing is configured', () => {
    expect(resolveRepoUnits({ defaultUnits: [], disabledUnits: [] })).toEqual({
      defaultRepoUnits: [...BUILTIN_DEFAULT_REPO_UNITS],
      disabledRepoUnits: [],
      warnings: [],
    });
    expect(BUILTIN_DEFAULT_REPO_UNITS).toEqual([
      'repo.code',
      'repo.issues',
      'repo.pulls',
      'repo.releases',
      'repo.wiki',
      'repo.projects',
      'repo.packages',
      'repo.actions',
    ]);
  });

  it('matches keys case-insensitively, keeps the configured order and drops duplicates', () => {
    const result = resolveRepoUnits({ defaultUnits: ['Repo.Pulls', 'REPO.CODE', 'repo.pulls'], disabledUnits: [] });
    expect(result.defaultRepoUnits).toEqual(['repo.pulls', 'repo.code']);
  });

  it('drops unknown keys with a warning', () => {
    const result = resolveRepoUnits({ defaultUnits: ['repo.code', 'repo.bogus'], disabledUnits: ['repo.nope'] });
    expect(result.defaultRepoUnits).toEqual(['repo.code']);
    expect(result.disabledRepoUnits).toEqual([]);
    expect(result.warnings).toEqual([
      expect.stringContaining('DISABLED_REPO_UNITS: unknown repository units ignored: repo.nope'),
      expect.stringContaining('DEFAULT_REPO_UNITS: unknown repository units ignored: repo.bogus'),
    ]);
  });

  it('falls back to the builtin list when every configured key is unknown', () => {
    expect(resolveRepoUnits({ defaultUnits: ['repo.bogus'], disabledUnits: [] }).defaultRepoUnits).toEqual([
      ...BUILTIN_DEFAULT_REPO_UNITS,
    ]);
  });

  it('removes globally disabled units from the defaults', () => {
    const result = resolveRepoUnits({ defaultUnits: [], disabledUnits: ['repo.wiki', 'REPO.ISSUES'] });
    expect(result.disabledRepoUnits).toEqual(['repo.wiki', 'repo.issues']);
    expect(result.defaultRepoUnits).toEqual([
      'repo.code',
      'repo.pulls',
      'repo.releases',
      'repo.projects',
      'repo.packages',
      'repo.actions',
    ]);
  });

  it('never makes external units defaults', () => {
    const result = resolveRepoUnits({ defaultUnits: ['repo.code', 'repo.ext_wiki'], disabledUnits: [] });
    expect(result.defaultRepoUnits).toEqual(['repo.code']);
    expect(result.warnings).toEqual([expect.stringContaining('repo.ext_wiki cannot be a default unit')]);
  });

  it('can end up empty (the caller rejects that)', () => {
    expect(resolveRepoUnits({ defaultUnits: ['repo.wiki'], disabledUnits: ['repo.wiki'] }).defaultRepoUnits).toEqual([]);
  });
});
