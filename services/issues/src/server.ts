/** The issues gRPC server: every issues service on one RpcServer. */
import type { Logger } from '@cairn/log';
import {
  CommentServiceService,
  IssueServiceService,
  IssueSubscriptionServiceService,
  LabelServiceService,
  MilestoneServiceService,
  TimeTrackingServiceService,
} from '@cairn/proto/cairn/issues/v1/issues_service';
import { ImportServiceService } from '@cairn/proto/cairn/issues/v1/import_service';
import { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import { createRpcServer, type RpcServer } from '@cairn/rpc';
import { createCommentService } from './rpc/comment-service';
import type { IssuesContext } from './rpc/context';
import { createImportService } from './rpc/import-service';
import { createIssueService } from './rpc/issue-service';
import { createLabelService } from './rpc/label-service';
import { createMilestoneService } from './rpc/milestone-service';
import { createPullService } from './rpc/pull-service';
import { createReviewService } from './rpc/review-service';
import { createSubscriptionService } from './rpc/subscription-service';
import { createTimeTrackingService } from './rpc/time-tracking-service';
import { COMMENT_CALLERS, IMPORT_CALLERS, ISSUE_CALLERS, ISSUE_SUBSCRIPTION_CALLERS, LABEL_CALLERS, MILESTONE_CALLERS, PULL_CALLERS, REVIEW_CALLERS, TIME_TRACKING_CALLERS } from './rpc/callers';

export function createIssuesServer(context: IssuesContext, logger: Logger): RpcServer {
  const server = createRpcServer({ service: 'issues', logger });
  server.addService(IssueServiceService, createIssueService(context), ISSUE_CALLERS);
  server.addService(LabelServiceService, createLabelService(context), LABEL_CALLERS);
  server.addService(MilestoneServiceService, createMilestoneService(context), MILESTONE_CALLERS);
  server.addService(CommentServiceService, createCommentService(context), COMMENT_CALLERS);
  server.addService(IssueSubscriptionServiceService, createSubscriptionService(context), ISSUE_SUBSCRIPTION_CALLERS);
  server.addService(TimeTrackingServiceService, createTimeTrackingService(context), TIME_TRACKING_CALLERS);
  server.addService(PullServiceService, createPullService(context), PULL_CALLERS);
  server.addService(ReviewServiceService, createReviewService(context), REVIEW_CALLERS);
  server.addService(ImportServiceService, createImportService(context), IMPORT_CALLERS);
  return server;
}
