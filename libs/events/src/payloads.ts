/**
 * The bodies of the public events: the JSON payloads Cairn's `gitea` webhook type delivers (Gitea's
 * modules/structs/hook.go), as the hooks service's builders (services/hooks/src/payloads) make them, which are checked
 * against these types. They are the one source of the payload JSON Schemas (`npm run generate` → src/gen) and so of the
 * AsyncAPI document: change a builder's output here first, and mind docs/contributing.md "Changing a public event
 * payload".
 *
 * Users and repositories are those of @cairn/gitea-json as an anonymous viewer sees them (placeholder e-mails, no
 * admin-only fields). Only exported types become named schema definitions.
 */
import type {
  ApiComment,
  ApiIssue,
  ApiLabel,
  ApiPayloadCommit,
  ApiPullRequest,
  ApiRelease,
  ApiRepository,
  ApiUser,
} from '@cairn/gitea-json';

/** Gitea's HookIssueAction values an issue's payload takes. */
export type IssueAction =
  | 'opened'
  | 'edited'
  | 'closed'
  | 'reopened'
  | 'deleted'
  | 'assigned'
  | 'unassigned'
  | 'label_updated'
  | 'label_cleared'
  | 'milestoned'
  | 'demilestoned';

/** Gitea's HookIssueAction values a pull request's payload takes: an issue's and those of pull requests only. */
export type PullRequestAction = IssueAction | 'synchronized' | 'reviewed' | 'review_requested' | 'review_request_removed';

/** Gitea's HookIssueCommentAction. */
export type HookIssueCommentAction = 'created' | 'edited' | 'deleted';

/** Gitea's HookReleaseAction. */
export type HookReleaseAction = 'published' | 'updated' | 'deleted';

/** Gitea's HookRepoAction. */
export type HookRepoAction = 'created' | 'deleted';

/** Gitea's ChangesFromPayload: a field's value before the change. */
export interface ChangesFrom {
  from: string;
}

/** Gitea's ChangesPayload: what an edit changed (title, body) or which labels a label change added and removed. */
export interface ChangesPayload {
  title?: ChangesFrom;
  body?: ChangesFrom;
  ref?: ChangesFrom;
  added_labels?: ApiLabel[];
  removed_labels?: ApiLabel[];
}

/** Gitea's ReviewPayload: a submitted review's type (its event type) and body. */
export interface ReviewPayload {
  type: string;
  content: string;
}

/** `push`: the commits a branch update added (newest first, at most 5 listed), or a new tag's commit. */
export interface PushPayload {
  /** The full ref name, `refs/heads/<branch>` or `refs/tags/<tag>`. */
  ref: string;
  before: string;
  after: string;
  compare_url: string;
  commits: ApiPayloadCommit[];
  total_commits: number;
  head_commit: ApiPayloadCommit;
  repository: ApiRepository;
  pusher: ApiUser;
  sender: ApiUser;
}

/** Gitea's ref types of create and delete payloads. */
export type RefType = 'branch' | 'tag';

/** `create`: a new branch or tag (`ref` is its short name). */
export interface CreatePayload {
  sha: string;
  ref: string;
  ref_type: RefType;
  repository: ApiRepository;
  sender: ApiUser;
}

/** `delete`: a deleted branch or tag (`ref` is its short name). */
export interface DeletePayload {
  ref: string;
  ref_type: RefType;
  /** Gitea's PusherType: always `user`. */
  pusher_type: 'user';
  repository: ApiRepository;
  sender: ApiUser;
}

/** `fork`: sent about the original repository (`forkee`); `repository` is the new fork. */
export interface ForkPayload {
  forkee: ApiRepository;
  repository: ApiRepository;
  sender: ApiUser;
}

/** `issues`, `issue_assign`, `issue_label`, `issue_milestone`: a change of an issue. */
export interface IssuePayload {
  action: IssueAction;
  number: number;
  changes?: ChangesPayload;
  issue: ApiIssue;
  repository: ApiRepository;
  sender: ApiUser;
  commit_id: string;
}

/** `issue_comment` and `pull_request_comment`: a comment on an issue or on a pull request (`is_pull`). */
export interface IssueCommentPayload {
  action: HookIssueCommentAction;
  issue: ApiIssue;
  comment: ApiComment;
  changes?: ChangesPayload;
  repository: ApiRepository;
  sender: ApiUser;
  is_pull: boolean;
}

/**
 * `pull_request` and its sub-events (assign, label, milestone, sync, review request, reviews): a change of a pull
 * request. `requested_reviewer` is set for review requests only, `review` for submitted reviews only.
 */
export interface PullRequestPayload {
  action: PullRequestAction;
  number: number;
  changes?: ChangesPayload;
  pull_request: ApiPullRequest;
  requested_reviewer: ApiUser | null;
  repository: ApiRepository;
  sender: ApiUser;
  commit_id: string;
  review: ReviewPayload | null;
}

/** `release`: a release published, updated or deleted. */
export interface ReleasePayload {
  action: HookReleaseAction;
  release: ApiRelease;
  repository: ApiRepository;
  sender: ApiUser;
}

/**
 * What a deleted repository's payload still says of it: the repository is gone from Cairn when the payload is built,
 * so only what the deletion event carries is there (Gitea sends its whole object).
 */
export type DeletedRepository = Pick<ApiRepository, 'id' | 'owner' | 'name' | 'full_name' | 'private' | 'html_url' | 'url'>;

/** `repository`: a repository created (or forked into an organization) or deleted; `organization` is its owner. */
export interface RepositoryPayload {
  action: HookRepoAction;
  repository: ApiRepository | DeletedRepository;
  organization: ApiUser;
  sender: ApiUser;
}

/** `status`: a commit status created (`id` is its index among the commit's statuses). */
export interface CommitStatusPayload {
  commit: ApiPayloadCommit | null;
  context: string;
  created_at: string;
  description: string;
  id: number;
  repository: ApiRepository;
  sender: ApiUser;
  sha: string;
  /** `pending`, `success`, `error`, `failure`, `warning` or `skipped` (Gitea's CommitStatusState). */
  state: string;
  target_url: string;
  updated_at: string;
}

/** Every payload kind by its type's name: the names the catalogue and the generated schemas use. */
export interface PayloadKinds {
  PushPayload: PushPayload;
  CreatePayload: CreatePayload;
  DeletePayload: DeletePayload;
  ForkPayload: ForkPayload;
  IssuePayload: IssuePayload;
  IssueCommentPayload: IssueCommentPayload;
  PullRequestPayload: PullRequestPayload;
  ReleasePayload: ReleasePayload;
  RepositoryPayload: RepositoryPayload;
  CommitStatusPayload: CommitStatusPayload;
}

export type PayloadKind = keyof PayloadKinds;

/** Any public event's body. */
export type EventPayload = PayloadKinds[PayloadKind];
