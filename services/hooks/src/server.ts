/** The hooks gRPC server: HookService (definitions, tests) and HookDeliveryService (history, redelivery). */
import type { Logger } from '@cairn/log';
import { HookDeliveryServiceService, HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { HOOK_CALLERS, HOOK_DELIVERY_CALLERS } from './rpc/callers';
import type { HooksContext } from './rpc/context';
import { createHookDeliveryService } from './rpc/hook-delivery-service';
import { createHookService } from './rpc/hook-service';
import { createTestHook } from './rpc/hook-tests';

export function createHooksServer(context: HooksContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'hooks', logger });
  server.addService(HookServiceService, { ...createHookService(context), testHook: createTestHook(context) }, HOOK_CALLERS);
  server.addService(HookDeliveryServiceService, createHookDeliveryService(context), HOOK_DELIVERY_CALLERS);
  return server;
}
