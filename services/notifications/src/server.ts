/** The notifications gRPC server: ActivityService and NotificationService on one RpcServer. */
import type { Logger } from '@cairn/log';
import { ActivityServiceService, NotificationServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { createActivityService } from './rpc/activity-service';
import type { NotificationsContext } from './rpc/context';
import { ACTIVITY_CALLERS, NOTIFICATION_CALLERS } from './rpc/callers';
import { createNotificationService } from './rpc/notification-service';

export function createNotificationsServer(context: NotificationsContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'notifications', logger });
  server.addService(ActivityServiceService, createActivityService(context), ACTIVITY_CALLERS);
  server.addService(NotificationServiceService, createNotificationService(context), NOTIFICATION_CALLERS);
  return server;
}
