/**
 * Who may call each of issues's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { CommentServiceService, IssueServiceService, IssueSubscriptionServiceService, LabelServiceService, MilestoneServiceService, TimeTrackingServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { ImportServiceService } from '@cairn/proto/cairn/issues/v1/import_service';
import type { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';

export const COMMENT_CALLERS: Callers<typeof CommentServiceService> = {
  listIssueComments: ['gateway'],
  listRepoComments: ['gateway'],
  getComment: ['gateway'],
  createComment: ['gateway'],
  editComment: ['gateway'],
  deleteComment: ['gateway'],
  batchGetComments: ['gateway'],
  listTimeline: ['gateway'],
};

export const ISSUE_CALLERS: Callers<typeof IssueServiceService> = {
  createIssue: ['gateway'],
  getIssue: ['gateway'],
  listIssues: ['gateway'],
  editIssue: ['gateway'],
  deleteIssue: ['gateway'],
  searchIssues: ['gateway'],
  setIssueLocked: ['gateway'],
  batchGetIssues: { callers: ['gateway', 'hooks'], asAnyone: ['hooks'] },
  batchGetIssueSubjects: ['gateway'],
  getRepoIssueCounters: ['gateway', 'hooks'],
  pinIssue: ['gateway'],
  unpinIssue: ['gateway'],
  moveIssuePin: ['gateway'],
  listPinnedIssues: ['gateway'],
  getNewPinsAllowed: ['gateway'],
};

export const ISSUE_SUBSCRIPTION_CALLERS: Callers<typeof IssueSubscriptionServiceService> = {
  listSubscribers: ['gateway'],
  checkSubscription: ['gateway'],
  setSubscription: ['gateway'],
  // notifications' fan-out asks who to consider for an event's issue (no user in the request).
  getIssueAudience: ['notifications'],
};

export const LABEL_CALLERS: Callers<typeof LabelServiceService> = {
  listLabels: ['gateway'],
  getLabel: ['gateway'],
  createLabel: ['gateway'],
  editLabel: ['gateway'],
  deleteLabel: ['gateway'],
  listIssueLabels: ['gateway'],
  addIssueLabels: ['gateway'],
  replaceIssueLabels: ['gateway'],
  removeIssueLabel: ['gateway'],
  clearIssueLabels: ['gateway'],
};

export const MILESTONE_CALLERS: Callers<typeof MilestoneServiceService> = {
  listMilestones: ['gateway'],
  getMilestone: ['gateway'],
  createMilestone: ['gateway'],
  editMilestone: ['gateway'],
  deleteMilestone: ['gateway'],
};

export const PULL_CALLERS: Callers<typeof PullServiceService> = {
  createPull: ['gateway'],
  getPull: { callers: ['gateway', 'hooks'], asAnyone: ['hooks'] },
  getPullByBranches: ['gateway'],
  listPulls: ['gateway'],
  editPull: ['gateway'],
  mergePull: ['gateway'],
  cancelAutoMerge: ['gateway'],
  checkPull: ['gateway'],
  updatePull: ['gateway'],
  listPinnedPulls: ['gateway'],
};

export const REVIEW_CALLERS: Callers<typeof ReviewServiceService> = {
  createReview: ['gateway'],
  submitReview: ['gateway'],
  listReviews: { callers: ['gateway', 'hooks'], asAnyone: ['hooks'] },
  getReview: ['gateway'],
  deleteReview: ['gateway'],
  listReviewComments: ['gateway'],
  requestReviewers: ['gateway'],
  cancelReviewRequests: ['gateway'],
  dismissReview: ['gateway'],
  undismissReview: ['gateway'],
  resolveReviewComment: ['gateway'],
};

export const TIME_TRACKING_CALLERS: Callers<typeof TimeTrackingServiceService> = {
  listTrackedTimes: ['gateway'],
  listUserTrackedTimes: ['gateway'],
  addTrackedTime: ['gateway'],
  deleteTrackedTime: ['gateway'],
  resetTrackedTimes: ['gateway'],
  startStopwatch: ['gateway'],
  stopStopwatch: ['gateway'],
  cancelStopwatch: ['gateway'],
  listStopwatches: ['gateway'],
};

/** The migrations service alone takes a migrated repository's items in. */
export const IMPORT_CALLERS: Callers<typeof ImportServiceService> = {
  importLabels: ['migrations'],
  importMilestones: ['migrations'],
  importIssues: ['migrations'],
  importComments: ['migrations'],
  importPullRequests: ['migrations'],
  importReviews: ['migrations'],
};
