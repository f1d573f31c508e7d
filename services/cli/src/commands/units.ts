/**
 * `--units` of dump-repo and restore-repo (Gitea's cmd/dump_repo.go and services/migrations/dump.go
 * updateOptionsUnits): comma separated, case and blanks ignored, empty meaning all; an unknown name is a usage error.
 */
import { type CommandSpec, UsageError } from '../args';

export const UNITS = ['wiki', 'issues', 'labels', 'releases', 'release_assets', 'milestones', 'pull_requests', 'comments'] as const;
export type UnitName = (typeof UNITS)[number];

/** The names `list` gives (none for all), refusing an unknown one as `command`'s usage error. */
export function parseUnitNames(list: string, command: CommandSpec): UnitName[] {
  const units = list.split(',').map((unit) => unit.trim().toLowerCase()).filter((unit) => unit !== '');
  for (const unit of units) if (!(UNITS as readonly string[]).includes(unit)) throw new UsageError(`invalid unit: ${unit}`, command);
  return units as UnitName[];
}
