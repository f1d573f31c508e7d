/**
 * Who may call each of notifications's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { ActivityServiceService, NotificationServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';

export const ACTIVITY_CALLERS: Callers<typeof ActivityServiceService> = {
  getHeatmap: ['gateway'],
};

/** A user's own threads: only the gateway, for the user it asserts (the service checks ownership as well). */
export const NOTIFICATION_CALLERS: Callers<typeof NotificationServiceService> = {
  listThreads: ['gateway'],
  countUnread: ['gateway'],
  getThread: ['gateway'],
  markThread: ['gateway'],
  markThreads: ['gateway'],
};
