/**
 * Who may call each of hooks' RPCs (`@cairn/rpc` authorize.ts): the gateway, which has checked that the caller may
 * manage the scope's hooks (repository admin, organization owner, the user, site admin).
 */
import type { Callers } from '@cairn/rpc';
import type { HookDeliveryServiceService, HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';

export const HOOK_CALLERS: Callers<typeof HookServiceService> = {
  createHook: ['gateway'],
  listHooks: ['gateway'],
  getHook: ['gateway'],
  editHook: ['gateway'],
  deleteHook: ['gateway'],
  testHook: ['gateway'],
};

export const HOOK_DELIVERY_CALLERS: Callers<typeof HookDeliveryServiceService> = {
  listHookDeliveries: ['gateway'],
  redeliverHookDelivery: ['gateway'],
};
