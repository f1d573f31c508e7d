/** The social gRPC server: StarService and WatchService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { StarServiceService, WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import type { SocialContext } from './rpc/context';
import { createStarService } from './rpc/star-service';
import { createWatchService } from './rpc/watch-service';

export function createSocialServer(context: SocialContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'social', logger });
  server.addService(StarServiceService, createStarService(context));
  server.addService(WatchServiceService, createWatchService(context));
  return server;
}
