/** Repository units, `[repository] DEFAULT_REPO_UNITS` / `DISABLED_REPO_UNITS`, as Gitea's models/unit/unit.go. */

/** Every unit key, in Gitea's type-id order. */
export const REPO_UNITS = [
  'repo.code',
  'repo.issues',
  'repo.pulls',
  'repo.releases',
  'repo.wiki',
  'repo.ext_wiki',
  'repo.ext_issues',
  'repo.projects',
  'repo.packages',
  'repo.actions',
] as const;
export type RepoUnit = (typeof REPO_UNITS)[number];

/** Gitea's builtin default units for a new repository. */
export const BUILTIN_DEFAULT_REPO_UNITS: readonly RepoUnit[] = [
  'repo.code',
  'repo.issues',
  'repo.pulls',
  'repo.releases',
  'repo.wiki',
  'repo.projects',
  'repo.packages',
  'repo.actions',
];

// External units need per-repository settings, so they can never be on by default.
const NEVER_DEFAULT: ReadonlySet<RepoUnit> = new Set(['repo.ext_wiki', 'repo.ext_issues']);

export interface RepoUnitSettings {
  defaultRepoUnits: RepoUnit[];
  disabledRepoUnits: RepoUnit[];
  /** Unknown keys and units that cannot be defaults, which were dropped. */
  warnings: string[];
}

/**
 * Resolves the configured lists: keys match case-insensitively, unknown keys are dropped with a warning,
 * an empty (or all-unknown) default list means the builtin one, and globally disabled units are removed
 * from the defaults. The caller treats an empty `defaultRepoUnits` as a fatal error, as Gitea does.
 */
export function resolveRepoUnits(configured: { defaultUnits: string[]; disabledUnits: string[] }): RepoUnitSettings {
  const warnings: string[] = [];
  const disabled = findUnits(configured.disabledUnits, 'DISABLED_REPO_UNITS', warnings);
  const requested = findUnits(configured.defaultUnits, 'DEFAULT_REPO_UNITS', warnings);
  const defaults =
    requested.length > 0
      ? requested.filter((unit) => {
          if (!NEVER_DEFAULT.has(unit)) return true;
          warnings.push(`[repository] DEFAULT_REPO_UNITS: ${unit} cannot be a default unit and is ignored`);
          return false;
        })
      : [...BUILTIN_DEFAULT_REPO_UNITS];
  return {
    defaultRepoUnits: defaults.filter((unit) => !disabled.includes(unit)),
    disabledRepoUnits: disabled,
    warnings,
  };
}

function findUnits(keys: string[], setting: string, warnings: string[]): RepoUnit[] {
  const units: RepoUnit[] = [];
  const unknown: string[] = [];
  for (const key of keys) {
    const unit = REPO_UNITS.find((candidate) => candidate === key.toLowerCase());
    if (!unit) unknown.push(key);
    else if (!units.includes(unit)) units.push(unit);
  }
  if (unknown.length > 0) {
    warnings.push(`[repository] ${setting}: unknown repository units ignored: ${unknown.join(', ')}`);
  }
  return units;
}
