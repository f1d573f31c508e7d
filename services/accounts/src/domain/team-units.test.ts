import {
  AccessMode,
  REPO_UNITS,
  accessAfterEdit,
  accessForNewTeam,
  allUnitsAt,
  parseAccessMode,
  teamAccessView,
  unitTypeFromKey,
  type TeamAccess,
} from './team-units';

const ALL_KEYS = REPO_UNITS.map((unit) => unit.key);
const form = (overrides: Partial<{ permission: string; units: string[]; unitsMap: Record<string, string> }> = {}) => ({
  permission: '',
  units: [],
  unitsMap: {},
  ...overrides,
});

describe('parseAccessMode', () => {
  it('knows read, write and admin, never owner', () => {
    expect(['read', 'write', 'admin', 'owner', 'none', 'x', ''].map((t) => parseAccessMode(t))).toEqual([1, 2, 3, 0, 0, 0, 0]);
  });
  it('falls back to the first allowed mode', () => {
    expect(parseAccessMode('write', AccessMode.None, AccessMode.Admin)).toBe(AccessMode.None);
    expect(parseAccessMode('admin', AccessMode.None, AccessMode.Admin)).toBe(AccessMode.Admin);
    expect(parseAccessMode('', AccessMode.Read, AccessMode.Write)).toBe(AccessMode.Read);
    expect(parseAccessMode('write', AccessMode.Read, AccessMode.Write)).toBe(AccessMode.Write);
  });
});

describe('unitTypeFromKey', () => {
  it('matches keys case-insensitively and ignores unknown ones', () => {
    expect(unitTypeFromKey('repo.code')).toBe(1);
    expect(unitTypeFromKey('REPO.Actions')).toBe(10);
    expect(unitTypeFromKey('repo.nothing')).toBeUndefined();
  });
});

describe('accessForNewTeam', () => {
  it('makes an admin team over every unit, external ones read-only', () => {
    const access = accessForNewTeam(form({ permission: 'admin', unitsMap: { 'repo.code': 'read' } }))!;
    expect(access.accessMode).toBe(AccessMode.Admin);
    expect(access.units).toEqual(allUnitsAt(AccessMode.Admin));
    expect(access.units.find((u) => u.type === 6)!.accessMode).toBe(AccessMode.Read);
  });

  it('takes units_map over units, and the team mode stays none whatever permission says', () => {
    const access = accessForNewTeam(
      form({ permission: 'write', units: ['repo.wiki'], unitsMap: { 'repo.issues': 'write', 'REPO.CODE': 'read', 'repo.pulls': 'owner', bogus: 'write' } }),
    )!;
    expect(access).toEqual({
      accessMode: AccessMode.None,
      units: [
        { type: 1, accessMode: AccessMode.Read },
        { type: 2, accessMode: AccessMode.Write },
        { type: 3, accessMode: AccessMode.None },
      ],
    });
  });

  it('gives the legacy unit list write for permission write and read otherwise', () => {
    expect(accessForNewTeam(form({ permission: 'write', units: ['repo.code', 'repo.code', 'repo.issues'] }))).toEqual({
      accessMode: AccessMode.None,
      units: [
        { type: 1, accessMode: AccessMode.Write },
        { type: 2, accessMode: AccessMode.Write },
      ],
    });
    expect(accessForNewTeam(form({ units: ['repo.code'] }))!.units).toEqual([{ type: 1, accessMode: AccessMode.Read }]);
  });

  it('refuses a non-admin team without units', () => {
    expect(accessForNewTeam(form({ permission: 'read' }))).toBeUndefined();
  });
});

describe('accessAfterEdit', () => {
  const readTeam: TeamAccess = { accessMode: AccessMode.None, units: [{ type: 1, accessMode: AccessMode.Read }] };

  it('keeps everything when nothing about access is given', () => {
    expect(accessAfterEdit(readTeam, form(), false)).toEqual({ ...readTeam, modeGiven: false });
  });

  it('replaces units from units_map or units only', () => {
    expect(accessAfterEdit(readTeam, form({ unitsMap: { 'repo.wiki': 'write' } }), false).units).toEqual([{ type: 5, accessMode: AccessMode.Write }]);
    expect(accessAfterEdit(readTeam, form({ permission: 'write', units: ['repo.pulls'] }), false)).toEqual({
      accessMode: AccessMode.None,
      units: [{ type: 3, accessMode: AccessMode.Write }],
      modeGiven: true,
    });
  });

  it('turns a team into an admin team and back', () => {
    const admin = accessAfterEdit(readTeam, form({ permission: 'admin' }), false);
    expect(admin).toEqual({ accessMode: AccessMode.Admin, units: allUnitsAt(AccessMode.Admin), modeGiven: true });
    const back = accessAfterEdit(admin, form({ permission: 'read', unitsMap: { 'repo.code': 'write' } }), false);
    expect(back).toEqual({ accessMode: AccessMode.None, units: [{ type: 1, accessMode: AccessMode.Write }], modeGiven: true });
  });

  it('never changes the Owners team', () => {
    const owners: TeamAccess = { accessMode: AccessMode.Owner, units: allUnitsAt(AccessMode.Owner) };
    expect(accessAfterEdit(owners, form({ permission: 'read', unitsMap: { 'repo.code': 'read' } }), true)).toEqual({ ...owners, modeGiven: false });
  });
});

describe('teamAccessView', () => {
  it('reports an owners team as owner on every unit', () => {
    const view = teamAccessView({ accessMode: AccessMode.Owner, units: allUnitsAt(AccessMode.Owner) });
    expect(view.permission).toBe('owner');
    expect(view.units).toEqual(ALL_KEYS);
    expect(view.unitsMap).toEqual(Object.fromEntries(ALL_KEYS.map((k) => [k, 'owner'])));
  });

  it('reports an admin team as admin on every unit, external ones included', () => {
    const view = teamAccessView({ accessMode: AccessMode.Admin, units: allUnitsAt(AccessMode.Admin) });
    expect(view).toEqual({ permission: 'admin', units: ALL_KEYS, unitsMap: Object.fromEntries(ALL_KEYS.map((k) => [k, 'admin'])) });
  });

  it('reports a unit team by its units, in unit order, none included', () => {
    const view = teamAccessView({
      accessMode: AccessMode.None,
      units: [
        { type: 3, accessMode: AccessMode.None },
        { type: 1, accessMode: AccessMode.Write },
      ],
    });
    expect(view).toEqual({ permission: 'none', units: ['repo.code', 'repo.pulls'], unitsMap: { 'repo.code': 'write', 'repo.pulls': 'none' } });
  });
});
