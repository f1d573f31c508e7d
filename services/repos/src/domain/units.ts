/**
 * Which units a repository has (Gitea's models/unit and services/repository `updateRepoUnits`): the defaults of a new
 * repository or fork, and how an edit switches units on and off. Keys are `[repository]`'s, e.g. `repo.code`.
 */
import { REPO_UNITS } from '@cairn/config';
import { CairnError } from '@cairn/rpc';

/** Gitea's builtin DEFAULT_FORK_REPO_UNITS. */
const FORK_UNITS: readonly string[] = ['repo.code', 'repo.pulls'];

/** External units link elsewhere and need a URL this API does not carry, so an edit cannot switch them on. */
const EXTERNAL_UNITS: Readonly<Record<string, string>> = { 'repo.ext_issues': 'repo.issues', 'repo.ext_wiki': 'repo.wiki' };

export interface UnitSettings {
  /** `[repository] DEFAULT_REPO_UNITS`, already without the disabled ones. */
  defaultRepoUnits: readonly string[];
  /** `[repository] DISABLED_REPO_UNITS`. */
  disabledRepoUnits: readonly string[];
}

export function newRepoUnits(settings: UnitSettings): string[] {
  return settings.defaultRepoUnits.filter((unit) => !settings.disabledRepoUnits.includes(unit));
}

export function forkUnits(settings: UnitSettings): string[] {
  return FORK_UNITS.filter((unit) => !settings.disabledRepoUnits.includes(unit));
}

export function isKnownUnit(key: string): boolean {
  return (REPO_UNITS as readonly string[]).includes(key);
}

export interface UnitChanges {
  enable: string[];
  disable: string[];
}

/**
 * The units an edit adds and removes. A globally disabled unit is left as it is (Gitea ignores it); switching the
 * internal tracker or wiki on or off also removes its external counterpart. INVALID_ARGUMENT (reason unit_invalid)
 * for an unknown key or an external unit switched on.
 */
export function unitChanges(current: readonly string[], toggles: Readonly<Record<string, boolean>>, settings: UnitSettings): UnitChanges {
  const enable: string[] = [];
  const disable: string[] = [];
  for (const [rawKey, on] of Object.entries(toggles)) {
    const key = rawKey.toLowerCase();
    if (!isKnownUnit(key)) throw CairnError.invalid(`unknown repository unit: ${rawKey}`, { reason: 'unit_invalid' });
    if (settings.disabledRepoUnits.includes(key)) continue;
    if (on && EXTERNAL_UNITS[key] !== undefined) {
      throw CairnError.invalid(`${key} needs an external URL and cannot be switched on here`, { reason: 'unit_invalid' });
    }
    const external = Object.keys(EXTERNAL_UNITS).find((unit) => EXTERNAL_UNITS[unit] === key);
    if (external !== undefined && current.includes(external)) disable.push(external);
    if (on && !current.includes(key)) enable.push(key);
    if (!on && current.includes(key)) disable.push(key);
  }
  return { enable, disable };
}

/** The units after `changes`. */
export function applyUnitChanges(current: readonly string[], changes: UnitChanges): string[] {
  return [...current.filter((unit) => !changes.disable.includes(unit)), ...changes.enable.filter((unit) => !current.includes(unit))];
}
