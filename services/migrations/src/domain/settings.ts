/** The settings that refuse an import outright, in Gitea's order (routers/api/v1/repo/migrate.go Migrate). */
import type { CairnConfig } from '@cairn/config';
import { CairnError } from '@cairn/rpc';

export const MIRRORS_DISABLED = 'the site administrator has disabled the creation of new pull mirrors';
export const MIGRATIONS_DISABLED = 'the site administrator has disabled migrations';

/**
 * PERMISSION_DENIED when the settings forbid this import: a pull mirror with `[mirror] ENABLED = false` or
 * `DISABLE_NEW_PULL` (Gitea's setting.Mirror.DisableNewPull, which ENABLED = false implies), then
 * `[repository] DISABLE_MIGRATIONS`.
 */
export function assertImportAllowed(config: Pick<CairnConfig, 'mirror' | 'repository'>, mirror: boolean): void {
  if (mirror && (!config.mirror.enabled || config.mirror.disableNewPull)) {
    throw CairnError.denied(MIRRORS_DISABLED, { reason: 'mirrors_disabled' });
  }
  if (config.repository.disableMigrations) throw CairnError.denied(MIGRATIONS_DISABLED, { reason: 'migrations_disabled' });
}
