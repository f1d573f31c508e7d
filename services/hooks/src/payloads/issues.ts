/**
 * issues, issue_comment, pull_request and pull_request_review payloads from issues' events, as Gitea's
 * services/webhook/notifier.go builds them (modules/structs/hook.go IssuePayload, IssueCommentPayload,
 * PullRequestPayload). Issue events about a pull request give the pull_request_* type of the same change, with the
 * pull request in the payload.
 *
 * Which event gives which payload, so that none is sent twice (issues publishes some changes of a pull request both
 * as cairn.issue.* and cairn.pull_request.*):
 * - pull requests opened, merged, synchronized and review requests: cairn.pull_request.*; the rest of a pull
 *   request's changes (edited, closed, reopened, deleted, assignees, labels, milestone): cairn.issue.*;
 * - a merge closes the issue too: Gitea sends only `closed` with `merged` (its MergePullRequest notifier).
 */
import {
  type ApiIssue,
  type ApiLabel,
  type ApiPullRequest,
  type ApiRepository,
  type ApiUser,
  toApiComment,
  toApiIssue,
  toApiPullRequest,
  toApiRepoLabel,
} from '@cairn/gitea-json';
import type { ChangesPayload, IssueAction, IssueCommentPayload, IssuePayload, PullRequestAction, PullRequestPayload, ReviewPayload } from '@cairn/events';
import type { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '@cairn/proto/cairn/issues/v1/events';
import type { Issue, Label } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PullRequest } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { RepositoryWithPermission } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { HookEventType } from '../domain/event-match';
import type { GiteaPayload } from '../delivery/formats/types';
import { type BuiltPayload, type PlannedPayload, memo } from './plan';
import { INTERNAL_VIEWER, type PayloadServices, apiRepository, apiUsers, loadRepository, repositoryOf } from './services';

/** What every payload of one issue event shares, read once. */
interface IssueScene {
  item: RepositoryWithPermission;
  repository: ApiRepository;
  user: (id: number) => ApiUser;
}

/**
 * Loads an event's scene beside what `convert` makes of its issue, comment or pull request. The converters need only
 * the repository (read once per event), not the scene's repository JSON and users, so their calls to the other
 * services run alongside the scene's instead of after them: one round of calls fewer before a delivery.
 */
type SceneLoader = <T>(convert: (item: RepositoryWithPermission) => Promise<T>) => Promise<[IssueScene, T] | undefined>;

function sceneLoader(services: PayloadServices, repoId: number, userIds: readonly number[]): SceneLoader {
  const item = memo(() => loadRepository(services, repoId));
  const scene = memo(async (): Promise<IssueScene | undefined> => {
    const loaded = await item();
    if (loaded === undefined) return undefined;
    const [repository, user] = await Promise.all([apiRepository(services, loaded), apiUsers(services, userIds)]);
    return { item: loaded, repository, user };
  });
  return async (convert) => {
    const loaded = await item();
    if (loaded === undefined) return undefined;
    const [ready, converted] = await Promise.all([scene(), convert(loaded)]);
    return ready === undefined ? undefined : [ready, converted];
  };
}

async function apiIssueOf(services: PayloadServices, item: RepositoryWithPermission, issue: Issue): Promise<ApiIssue> {
  return toApiIssue(services, undefined, issue, repositoryOf(item));
}

async function apiPullOf(services: PayloadServices, item: RepositoryWithPermission, pull: PullRequest): Promise<ApiPullRequest> {
  const repository = repositoryOf(item);
  if (item.permission === undefined) throw new Error('repository without permission');
  return toApiPullRequest(services, undefined, pull, { repository, permission: item.permission });
}

/** The pull request of an issue event about one (issues' GetPull, as a site admin). */
async function pullOfIssue(services: PayloadServices, item: RepositoryWithPermission, issue: Issue): Promise<PullRequest> {
  const { pull } = await services.clients.pulls.getPull({ scope: { viewer: INTERNAL_VIEWER, repository: item }, index: issue.index });
  if (pull === undefined) throw new Error(`issues answered no pull request for #${issue.index}`);
  return pull;
}

interface ChangeOptions<A extends PullRequestAction = PullRequestAction> {
  action: A;
  changes?: ChangesPayload;
  /** PullRequestPayload only. */
  requestedReviewer?: ApiUser | null;
  review?: ReviewPayload | null;
}

/** IssuePayload (`action, number, changes?, issue, repository, sender, commit_id`). */
function issuePayload(scene: IssueScene, issue: ApiIssue, senderId: number, options: ChangeOptions<IssueAction>): GiteaPayload {
  return {
    action: options.action,
    number: issue.number,
    ...(options.changes === undefined ? {} : { changes: options.changes }),
    issue,
    repository: scene.repository,
    sender: scene.user(senderId),
    commit_id: '',
  } satisfies IssuePayload;
}

/** PullRequestPayload (`action, number, changes?, pull_request, requested_reviewer, repository, sender, commit_id, review`). */
function pullPayload(scene: IssueScene, pull: ApiPullRequest, senderId: number, options: ChangeOptions): GiteaPayload {
  return {
    action: options.action,
    number: pull.number,
    ...(options.changes === undefined ? {} : { changes: options.changes }),
    pull_request: pull,
    requested_reviewer: options.requestedReviewer ?? null,
    repository: scene.repository,
    sender: scene.user(senderId),
    commit_id: '',
    review: options.review ?? null,
  } satisfies PullRequestPayload;
}

/** One change of an issue or of a pull request's issue half, as the payload of the right kind. */
function issueChangePlan(
  services: PayloadServices,
  scene: SceneLoader,
  key: string,
  issue: Issue,
  senderId: number,
  types: { issue: HookEventType; pull: HookEventType },
  options: (scene: IssueScene) => ChangeOptions<IssueAction>,
): PlannedPayload {
  return {
    key,
    eventType: issue.isPull ? types.pull : types.issue,
    build: async (): Promise<BuiltPayload | undefined> => {
      if (!issue.isPull) {
        const loaded = await scene((item) => apiIssueOf(services, item, issue));
        if (loaded === undefined) return undefined;
        const [ready, apiIssue] = loaded;
        return { payload: issuePayload(ready, apiIssue, senderId, options(ready)) };
      }
      const loaded = await scene(async (item) => apiPullOf(services, item, await pullOfIssue(services, item, issue)));
      if (loaded === undefined) return undefined;
      const [ready, pull] = loaded;
      return { payload: pullPayload(ready, pull, senderId, options(ready)) };
    },
  };
}

function labelsOf(scene: IssueScene, rootUrl: string, labels: readonly Label[]): ApiLabel[] {
  const repository = repositoryOf(scene.item);
  return labels.map((label) => toApiRepoLabel(label, rootUrl, repository));
}

/** `changes` of an edit (Gitea's ChangesPayload): the title's and body's former values. */
function editChanges(event: IssueEvent): ChangesPayload | undefined {
  const changes: ChangesPayload = {};
  if (event.changed.includes('title')) changes.title = { from: event.previousTitle };
  if (event.changed.includes('body')) changes.body = { from: event.previousBody };
  return Object.keys(changes).length === 0 ? undefined : changes;
}

/** The payloads of one cairn.issue.* event (`change` = the subject's last token). */
export function issuePlans(services: PayloadServices, change: string, event: IssueEvent, eventId: string): PlannedPayload[] {
  const issue = event.issue;
  if (issue === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  const scene = sceneLoader(services, issue.repoId, [senderId]);
  const plan = (key: string, types: { issue: HookEventType; pull: HookEventType }, options: (scene: IssueScene) => ChangeOptions<IssueAction>) =>
    issueChangePlan(services, scene, key, issue, senderId, types, options);
  const lifecycle = { issue: 'issues', pull: 'pull_request' } as const;
  switch (change) {
    case 'opened':
      // A pull request's opening is cairn.pull_request.opened.
      return issue.isPull ? [] : [plan(eventId, lifecycle, () => ({ action: 'opened' }))];
    case 'edited': {
      const changes = editChanges(event);
      return changes === undefined ? [] : [plan(eventId, lifecycle, () => ({ action: 'edited', changes }))];
    }
    case 'closed':
      // A merge: cairn.pull_request.merged sends `closed` with `merged`.
      return issue.isPull && issue.pullMergedAt !== undefined ? [] : [plan(eventId, lifecycle, () => ({ action: 'closed' }))];
    case 'reopened':
      return [plan(eventId, lifecycle, () => ({ action: 'reopened' }))];
    case 'deleted':
      return [plan(eventId, lifecycle, () => ({ action: 'deleted' }))];
    case 'assigned': {
      // Gitea notifies each assignee change on its own (IssueChangeAssignee).
      const types = { issue: 'issue_assign', pull: 'pull_request_assign' } as const;
      return [
        ...event.addedAssigneeIds.map((id) => plan(`${eventId}:assigned:${id}`, types, () => ({ action: 'assigned' }))),
        ...event.removedAssigneeIds.map((id) => plan(`${eventId}:unassigned:${id}`, types, () => ({ action: 'unassigned' }))),
      ];
    }
    case 'labeled': {
      const types = { issue: 'issue_label', pull: 'pull_request_label' } as const;
      // Every label gone and none added: Gitea's IssueClearLabels (`label_cleared`, no changes).
      if (issue.labels.length === 0 && event.addedLabels.length === 0) return [plan(eventId, types, () => ({ action: 'label_cleared' }))];
      const { rootUrl } = services.config.server;
      return [
        plan(eventId, types, (loaded) => ({
          action: 'label_updated',
          changes: { added_labels: labelsOf(loaded, rootUrl, event.addedLabels), removed_labels: labelsOf(loaded, rootUrl, event.removedLabels) },
        })),
      ];
    }
    case 'milestoned':
      return [
        plan(eventId, { issue: 'issue_milestone', pull: 'pull_request_milestone' }, () => ({
          action: issue.milestone === undefined ? 'demilestoned' : 'milestoned',
        })),
      ];
    default:
      // locked, unlocked, time tracking, subscriptions: no webhook in Gitea.
      return [];
  }
}

/** The payloads of one cairn.issue_comment.* event: issue_comment, or pull_request_comment on a pull request. */
export function commentPlans(services: PayloadServices, change: string, event: IssueCommentEvent, eventId: string): PlannedPayload[] {
  const { issue, comment } = event;
  if (issue === undefined || comment === undefined) return [];
  const action = change === 'created' || change === 'edited' || change === 'deleted' ? change : undefined;
  if (action === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  const scene = sceneLoader(services, issue.repoId, [senderId]);
  return [
    {
      key: eventId,
      eventType: issue.isPull ? 'pull_request_comment' : 'issue_comment',
      build: async () => {
        const loaded = await scene((item) =>
          Promise.all([apiIssueOf(services, item, issue), toApiComment(services, undefined, repositoryOf(item), comment)]),
        );
        if (loaded === undefined) return undefined;
        const [ready, [apiIssue, apiComment]] = loaded;
        // IssueCommentPayload: action, issue, comment, changes?, repository, sender, is_pull.
        return {
          payload: {
            action,
            issue: apiIssue,
            comment: apiComment,
            ...(action === 'edited' ? { changes: { body: { from: event.previousBody } } } : {}),
            repository: ready.repository,
            sender: ready.user(senderId),
            is_pull: issue.isPull,
          } satisfies IssueCommentPayload,
        };
      },
    },
  ];
}

/** The payloads of one cairn.pull_request.* event. */
export function pullPlans(services: PayloadServices, change: string, event: PullRequestEvent, eventId: string): PlannedPayload[] {
  const pull = event.pull;
  const issue = pull?.issue;
  if (pull === undefined || issue === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  const scene = sceneLoader(services, issue.repoId, [senderId, ...event.reviewerIds]);
  const plan = (key: string, eventType: HookEventType, options: (scene: IssueScene) => ChangeOptions): PlannedPayload => ({
    key,
    eventType,
    build: async () => {
      const loaded = await scene((item) => apiPullOf(services, item, pull));
      if (loaded === undefined) return undefined;
      const [ready, apiPull] = loaded;
      return { payload: pullPayload(ready, apiPull, senderId, options(ready)) };
    },
  });
  switch (change) {
    case 'opened':
      return [plan(eventId, 'pull_request', () => ({ action: 'opened' }))];
    case 'merged':
      // Gitea's MergePullRequest notifier: `closed`, the pull request's `merged` true.
      return [plan(eventId, 'pull_request', () => ({ action: 'closed' }))];
    case 'synchronized':
      return [plan(eventId, 'pull_request_sync', () => ({ action: 'synchronized' }))];
    case 'review_requested':
    case 'review_request_removed':
      // One per reviewer, each named in requested_reviewer (Gitea's PullRequestReviewRequest).
      return event.reviewerIds.map((id) =>
        plan(`${eventId}:${id}`, 'pull_request_review_request', (loaded) => ({ action: change, requestedReviewer: loaded.user(id) })),
      );
    default:
      // edited, closed, reopened: cairn.issue.* of the issue half; mergeability_changed: no webhook.
      return [];
  }
}

/** Gitea's review event types and `review.type` (webhook_module.HookEventPullRequestReview*). */
const REVIEW_KINDS: Readonly<Record<string, { eventType: HookEventType; type: string }>> = {
  APPROVED: { eventType: 'pull_request_review_approved', type: 'pull_request_review_approved' },
  REQUEST_CHANGES: { eventType: 'pull_request_review_rejected', type: 'pull_request_review_rejected' },
  COMMENT: { eventType: 'pull_request_review_comment', type: 'pull_request_review_comment' },
};

/** The payload of a submitted review (Gitea's PullRequestReview notifier: action `reviewed`). */
export function reviewPlans(services: PayloadServices, change: string, event: PullReviewEvent, eventId: string): PlannedPayload[] {
  const { pull, review } = event;
  const issue = pull?.issue;
  if (change !== 'submitted' || pull === undefined || review === undefined || issue === undefined) return [];
  const kind = REVIEW_KINDS[review.state];
  if (kind === undefined) return [];
  const senderId = event.meta?.actorId ?? 0;
  const scene = sceneLoader(services, issue.repoId, [senderId]);
  return [
    {
      key: eventId,
      eventType: kind.eventType,
      build: async () => {
        const loaded = await scene((item) => apiPullOf(services, item, pull));
        if (loaded === undefined) return undefined;
        const [ready, apiPull] = loaded;
        return { payload: pullPayload(ready, apiPull, senderId, { action: 'reviewed', review: { type: kind.type, content: review.body } }) };
      },
    },
  ];
}
