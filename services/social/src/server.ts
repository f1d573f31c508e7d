/** The social gRPC server: StarService, WatchService, ReactionService and ImportService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { ReactionServiceService, StarServiceService, WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { ImportServiceService } from '@cairn/proto/cairn/social/v1/import_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import type { SocialContext } from './rpc/context';
import { createImportService } from './rpc/import-service';
import { createReactionService } from './rpc/reaction-service';
import { createStarService } from './rpc/star-service';
import { createWatchService } from './rpc/watch-service';
import { IMPORT_CALLERS, REACTION_CALLERS, STAR_CALLERS, WATCH_CALLERS } from './rpc/callers';

export function createSocialServer(context: SocialContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'social', logger });
  server.addService(StarServiceService, createStarService(context), STAR_CALLERS);
  server.addService(WatchServiceService, createWatchService(context), WATCH_CALLERS);
  server.addService(ReactionServiceService, createReactionService(context), REACTION_CALLERS);
  server.addService(ImportServiceService, createImportService(context), IMPORT_CALLERS);
  return server;
}
