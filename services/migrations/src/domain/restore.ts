/**
 * Restores (Gitea's cmd/restore_repo.go and services/migrations/dump.go RestoreRepository): the units a restore
 * moves, and what the dump archive the CLI sends may be.
 */
import type { TarLimits } from '@cairn/migration';
import { CairnError } from '@cairn/rpc';
import type { TaskOptions } from '../store/tasks';

/** Gitea's unit names (dump.go updateOptionsUnits). */
export const RESTORE_UNITS = ['wiki', 'issues', 'labels', 'releases', 'release_assets', 'milestones', 'pull_requests', 'comments'] as const;

/** Bounds on the archive: a dump's git data and assets, not unbounded input (documented in docs/dump-repo.md). */
export const RESTORE_ARCHIVE_LIMITS: TarLimits = { maxBytes: 8 * 1024 ** 3, maxEntries: 1_000_000 };
/** repo.yml is a small map; more than this is not a dump. */
export const REPO_YML_MAX_BYTES = 1 << 20;

/** `--units` as Gitea's updateOptionsUnits: none is all; an unknown name is refused. */
export function restoreOptions(units: readonly string[], repo: { isPrivate: boolean; description: string }): TaskOptions {
  const names = units.map((unit) => unit.trim().toLowerCase()).filter((unit) => unit !== '');
  for (const unit of names) if (!(RESTORE_UNITS as readonly string[]).includes(unit)) throw CairnError.invalid(`invalid unit: ${unit}`, { reason: 'bad_units' });
  const has = (unit: (typeof RESTORE_UNITS)[number]) => names.length === 0 || names.includes(unit);
  return {
    mirror: false,
    private: repo.isPrivate,
    description: repo.description,
    wiki: has('wiki'),
    milestones: has('milestones'),
    labels: has('labels'),
    issues: has('issues'),
    comments: has('comments'),
    pull_requests: has('pull_requests'),
    releases: has('releases'),
    release_assets: has('release_assets'),
    lfs: false,
  };
}
