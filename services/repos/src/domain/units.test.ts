import { Code } from '@cairn/rpc';
import { applyUnitChanges, forkUnits, newRepoUnits, unitChanges } from './units';

const settings = { defaultRepoUnits: ['repo.code', 'repo.issues', 'repo.pulls', 'repo.wiki'], disabledRepoUnits: ['repo.wiki'] };

describe('units', () => {
  it('starts repositories with the defaults and forks with code and pulls, never a disabled unit', () => {
    expect(newRepoUnits(settings)).toEqual(['repo.code', 'repo.issues', 'repo.pulls']);
    expect(forkUnits(settings)).toEqual(['repo.code', 'repo.pulls']);
    expect(forkUnits({ ...settings, disabledRepoUnits: ['repo.pulls'] })).toEqual(['repo.code']);
  });

  it('switches units on and off, case-insensitively, ignoring disabled ones', () => {
    const changes = unitChanges(['repo.code', 'repo.issues'], { 'REPO.ISSUES': false, 'repo.releases': true, 'repo.wiki': true, 'repo.code': true }, settings);
    expect(changes).toEqual({ enable: ['repo.releases'], disable: ['repo.issues'] });
    expect(applyUnitChanges(['repo.code', 'repo.issues'], changes)).toEqual(['repo.code', 'repo.releases']);
  });

  it('drops the external tracker when the internal one is switched', () => {
    expect(unitChanges(['repo.ext_issues'], { 'repo.issues': true }, settings)).toEqual({ enable: ['repo.issues'], disable: ['repo.ext_issues'] });
  });

  it('refuses unknown keys and switching external units on', () => {
    expect(() => unitChanges([], { 'repo.chat': true }, settings)).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT, reason: 'unit_invalid' }));
    expect(() => unitChanges([], { 'repo.ext_wiki': true }, settings)).toThrow(expect.objectContaining({ reason: 'unit_invalid' }));
  });
});
