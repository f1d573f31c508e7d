// Imports (Migrate, GetMigration): being built (issue 18, the import part).
import { CairnError, Code, type AsyncServiceOf } from '@cairn/rpc';
import type { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import type { MigrationsContext } from './context';

export function createMigrationRpcs(_context: MigrationsContext): Pick<AsyncServiceOf<typeof MigrationServiceService>, 'migrate' | 'getMigration'> {
  const no = () => Promise.reject(new CairnError(Code.UNIMPLEMENTED, 'imports are not built yet'));
  return { migrate: no, getMigration: no };
}
