/** The migrations gRPC server: MigrationService (imports, pull mirrors, push mirrors), one file per RPC family. */
import type { Logger } from '@cairn/log';
import { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { MIGRATION_CALLERS } from './rpc/callers';
import type { MigrationsContext } from './rpc/context';
import { createMigrationRpcs } from './rpc/migration-service';
import { createMirrorRpcs } from './rpc/mirror-service';
import { createPushMirrorRpcs } from './rpc/push-mirror-service';
import { createRestoreRpcs } from './rpc/restore-service';

export function createMigrationsServer(context: MigrationsContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'migrations', logger });
  server.addService(
    MigrationServiceService,
    { ...createMigrationRpcs(context), ...createMirrorRpcs(context), ...createPushMirrorRpcs(context), ...createRestoreRpcs(context) },
    MIGRATION_CALLERS,
  );
  return server;
}
