/**
 * A team's access: Gitea's access modes (models/perm/access_mode.go), repository units (models/unit/unit.go)
 * and how the API turns a team form into stored units and back into `permission`, `units` and `units_map`
 * (routers/api/v1/org/team.go `CreateTeam`/`EditTeam`, models/organization/team.go `GetUnitNames`/`GetUnitsMap`).
 */

export enum AccessMode {
  None = 0,
  Read = 1,
  Write = 2,
  Admin = 3,
  Owner = 4,
}

const ACCESS_MODE_NAMES: Readonly<Record<AccessMode, string>> = {
  [AccessMode.None]: 'none',
  [AccessMode.Read]: 'read',
  [AccessMode.Write]: 'write',
  [AccessMode.Admin]: 'admin',
  [AccessMode.Owner]: 'owner',
};

export function accessModeName(mode: AccessMode): string {
  return ACCESS_MODE_NAMES[mode];
}

export function isAccessMode(value: number): value is AccessMode {
  return Number.isInteger(value) && value >= AccessMode.None && value <= AccessMode.Owner;
}

/**
 * Gitea's `perm.ParseAccessMode(text, allowed...)`: `read`, `write` and `admin` are understood (never `owner`,
 * which no form may grant), anything else is `none`; with `allowed`, a mode outside it becomes the first allowed.
 */
export function parseAccessMode(text: string, ...allowed: AccessMode[]): AccessMode {
  let mode = AccessMode.None;
  if (text === 'read') mode = AccessMode.Read;
  else if (text === 'write') mode = AccessMode.Write;
  else if (text === 'admin') mode = AccessMode.Admin;
  if (allowed.length === 0 || allowed.includes(mode)) return mode;
  return allowed[0];
}

export interface RepoUnit {
  /** Gitea's `unit.Type`, as stored in `team_units.type`. */
  type: number;
  key: string;
}

/** Every repository unit, in type order (the order Cairn lists them in). */
export const REPO_UNITS: readonly RepoUnit[] = [
  { type: 1, key: 'repo.code' },
  { type: 2, key: 'repo.issues' },
  { type: 3, key: 'repo.pulls' },
  { type: 4, key: 'repo.releases' },
  { type: 5, key: 'repo.wiki' },
  { type: 6, key: 'repo.ext_wiki' },
  { type: 7, key: 'repo.ext_issues' },
  { type: 8, key: 'repo.projects' },
  { type: 9, key: 'repo.packages' },
  { type: 10, key: 'repo.actions' },
];

/** External wiki and tracker are links, never more than readable. */
const EXTERNAL_UNIT_TYPES: ReadonlySet<number> = new Set([6, 7]);

/** Gitea's `unit.TypeFromKey`: case-insensitive; unknown keys are ignored. */
export function unitTypeFromKey(key: string): number | undefined {
  const folded = key.toLowerCase();
  return REPO_UNITS.find((unit) => unit.key === folded)?.type;
}

function unitKey(type: number): string | undefined {
  return REPO_UNITS.find((unit) => unit.type === type)?.key;
}

export interface TeamUnitAccess {
  type: number;
  accessMode: AccessMode;
}

/** What a team grants, as stored. */
export interface TeamAccess {
  accessMode: AccessMode;
  units: TeamUnitAccess[];
}

function byType(units: TeamUnitAccess[]): TeamUnitAccess[] {
  return [...units].sort((a, b) => a.type - b.type);
}

/** Every unit at `mode`, external units read-only: the units of an admin team (`attachAdminTeamUnits`) and of Owners. */
export function allUnitsAt(mode: AccessMode): TeamUnitAccess[] {
  return REPO_UNITS.map((unit) => ({ type: unit.type, accessMode: EXTERNAL_UNIT_TYPES.has(unit.type) ? AccessMode.Read : mode }));
}

/** `attachTeamUnitsMap`: each known key at the mode its value names (`none` for anything else). */
function unitsFromMap(unitsMap: Readonly<Record<string, string>>): TeamUnitAccess[] {
  const units = new Map<number, AccessMode>();
  for (const [key, value] of Object.entries(unitsMap)) {
    const type = unitTypeFromKey(key);
    if (type !== undefined) units.set(type, parseAccessMode(value));
  }
  return byType([...units].map(([type, accessMode]) => ({ type, accessMode })));
}

/** `attachTeamUnits`: the legacy unit list, every unit at one mode. */
function unitsFromList(keys: readonly string[], mode: AccessMode): TeamUnitAccess[] {
  const types = new Set<number>();
  for (const key of keys) {
    const type = unitTypeFromKey(key);
    if (type !== undefined) types.add(type);
  }
  return byType([...types].map((type) => ({ type, accessMode: mode })));
}

/** A team form's access fields, as the API receives them. */
export interface TeamAccessForm {
  /** `read|write|admin`, or anything else (only `admin` matters to the team itself). */
  permission: string;
  units: readonly string[];
  unitsMap: Readonly<Record<string, string>>;
}

/**
 * The access a new team gets (Gitea's `CreateTeam`): `admin` makes an admin team over every unit; any other
 * permission makes a team whose own mode is `none` and whose access lives in its units — from `units_map`
 * when given, else every listed unit at `write` (permission `write`) or `read`. Undefined when neither is
 * given: Gitea refuses such a team.
 */
export function accessForNewTeam(form: TeamAccessForm): TeamAccess | undefined {
  const accessMode = parseAccessMode(form.permission, AccessMode.None, AccessMode.Admin);
  if (accessMode === AccessMode.Admin) return { accessMode, units: allUnitsAt(AccessMode.Admin) };
  if (Object.keys(form.unitsMap).length > 0) return { accessMode, units: unitsFromMap(form.unitsMap) };
  if (form.units.length > 0) {
    return { accessMode, units: unitsFromList(form.units, parseAccessMode(form.permission, AccessMode.Read, AccessMode.Write)) };
  }
  return undefined;
}

/**
 * A team's access after an edit (Gitea's `EditTeam`): the Owners team keeps its access; an empty permission
 * keeps the team's mode; units change only when `units_map` or `units` is given, except that an admin team
 * always holds every unit. `modeGiven` says whether the form named a permission: only then does Gitea apply
 * `includes_all_repositories` too.
 */
export function accessAfterEdit(current: TeamAccess, form: TeamAccessForm, isOwnerTeam: boolean): TeamAccess & { modeGiven: boolean } {
  if (isOwnerTeam) return { ...current, modeGiven: false };
  const modeGiven = form.permission !== '';
  const accessMode = modeGiven ? parseAccessMode(form.permission, AccessMode.None, AccessMode.Admin) : current.accessMode;
  if (accessMode >= AccessMode.Admin) return { accessMode, units: allUnitsAt(AccessMode.Admin), modeGiven };
  if (Object.keys(form.unitsMap).length > 0) return { accessMode, units: unitsFromMap(form.unitsMap), modeGiven };
  if (form.units.length > 0) {
    return { accessMode, units: unitsFromList(form.units, parseAccessMode(form.permission, AccessMode.Read, AccessMode.Write)), modeGiven };
  }
  return { accessMode, units: current.units, modeGiven };
}

export interface TeamAccessView {
  /** `none|read|write|admin|owner` */
  permission: string;
  units: string[];
  unitsMap: Record<string, string>;
}

/**
 * `permission`, `units` and `units_map` as Gitea reports them: a team with admin access or more lists every
 * unit, each at the team's own mode; any other team lists its stored units at their modes.
 */
export function teamAccessView(access: TeamAccess): TeamAccessView {
  const permission = accessModeName(access.accessMode);
  if (access.accessMode >= AccessMode.Admin) {
    const keys = REPO_UNITS.map((unit) => unit.key);
    return { permission, units: keys, unitsMap: Object.fromEntries(keys.map((key) => [key, permission])) };
  }
  const units: string[] = [];
  const unitsMap: Record<string, string> = {};
  for (const unit of byType(access.units)) {
    const key = unitKey(unit.type);
    if (key === undefined) continue;
    units.push(key);
    unitsMap[key] = accessModeName(unit.accessMode);
  }
  return { permission, units, unitsMap };
}

/**
 * The team's stored unit modes by unit key, as repository permission decisions read them (Gitea's
 * `Team.UnitAccessModeEx`): unlike `teamAccessView`, an admin team's external units stay readable only.
 */
export function grantedUnits(access: TeamAccess): Record<string, string> {
  const granted: Record<string, string> = {};
  for (const unit of byType(access.units)) {
    const key = unitKey(unit.type);
    if (key !== undefined) granted[key] = accessModeName(unit.accessMode);
  }
  return granted;
}
