/**
 * The services the gateway calls. Handlers and middleware see only these async client shapes, so tests
 * hand the app in-memory fakes and production hands it gRPC clients (`createServiceClients`).
 */
import type { Logger } from '@cairn/log';
import type { CairnConfig, GrpcServiceName } from '@cairn/config';
import { type AsyncClientOf, type RpcClient, type RpcClientHandle, createRpcClient } from '@cairn/rpc';
import { AccessTokenServiceService, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { OrgServiceService, TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { GpgKeyServiceService } from '@cairn/proto/cairn/accounts/v1/gpg_keys_service';
import { AnalysisServiceService, CommitServiceService, ContentServiceService, MergeServiceService, RefServiceService, SmartHttpServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { HookDeliveryServiceService, HookServiceService } from '@cairn/proto/cairn/hooks/v1/hooks_service';
import { MigrationServiceService } from '@cairn/proto/cairn/migrations/v1/migrations_service';
import { ActivityServiceService, NotificationServiceService } from '@cairn/proto/cairn/notifications/v1/notifications_service';
import {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
  TopicServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import { AttachmentServiceService, ReleaseServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import { TagProtectionServiceService } from '@cairn/proto/cairn/repos/v1/tag_protections_service';
import { ReactionServiceService, StarServiceService, WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import {
  CommentServiceService,
  IssueServiceService,
  IssueSubscriptionServiceService,
  LabelServiceService,
  MilestoneServiceService,
  TimeTrackingServiceService,
} from '@cairn/proto/cairn/issues/v1/issues_service';
import { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type TokensClient = AsyncClientOf<typeof AccessTokenServiceService>;
export type OrgsClient = AsyncClientOf<typeof OrgServiceService>;
export type TeamsClient = AsyncClientOf<typeof TeamServiceService>;
export type ActivityClient = AsyncClientOf<typeof ActivityServiceService>;
export type NotificationsClient = AsyncClientOf<typeof NotificationServiceService>;
export type HooksClient = AsyncClientOf<typeof HookServiceService>;
export type HookDeliveriesClient = AsyncClientOf<typeof HookDeliveryServiceService>;
export type MigrationsClient = AsyncClientOf<typeof MigrationServiceService>;
export type GpgKeysClient = AsyncClientOf<typeof GpgKeyServiceService>;
export type ReposClient = AsyncClientOf<typeof RepoServiceService>;
export type CollaboratorsClient = AsyncClientOf<typeof CollaboratorServiceService>;
export type TopicsClient = AsyncClientOf<typeof TopicServiceService>;
export type BranchProtectionsClient = AsyncClientOf<typeof BranchProtectionServiceService>;
export type CommitStatusesClient = AsyncClientOf<typeof CommitStatusServiceService>;
export type ReleasesClient = AsyncClientOf<typeof ReleaseServiceService>;
export type AttachmentsClient = AsyncClientOf<typeof AttachmentServiceService>;
export type TagProtectionsClient = AsyncClientOf<typeof TagProtectionServiceService>;
export type RefsClient = AsyncClientOf<typeof RefServiceService>;
export type CommitsClient = AsyncClientOf<typeof CommitServiceService>;
export type ContentsClient = AsyncClientOf<typeof ContentServiceService>;
export type SmartHttpClient = AsyncClientOf<typeof SmartHttpServiceService>;
export type GitMergeClient = AsyncClientOf<typeof MergeServiceService>;
export type AnalysisClient = AsyncClientOf<typeof AnalysisServiceService>;
export type StarsClient = AsyncClientOf<typeof StarServiceService>;
export type WatchesClient = AsyncClientOf<typeof WatchServiceService>;
export type ReactionsClient = AsyncClientOf<typeof ReactionServiceService>;
export type IssuesClient = AsyncClientOf<typeof IssueServiceService>;
export type LabelsClient = AsyncClientOf<typeof LabelServiceService>;
export type MilestonesClient = AsyncClientOf<typeof MilestoneServiceService>;
export type CommentsClient = AsyncClientOf<typeof CommentServiceService>;
export type IssueSubscriptionsClient = AsyncClientOf<typeof IssueSubscriptionServiceService>;
export type TimeTrackingClient = AsyncClientOf<typeof TimeTrackingServiceService>;
export type PullsClient = AsyncClientOf<typeof PullServiceService>;
export type ReviewsClient = AsyncClientOf<typeof ReviewServiceService>;

export interface GatewayClients {
  /** accounts: users. */
  users: UsersClient;
  /** accounts: personal access tokens. */
  tokens: TokensClient;
  /** accounts: organizations and their members. */
  orgs: OrgsClient;
  /** accounts: teams. */
  teams: TeamsClient;
  /** notifications: users' activity (the heatmap). */
  activity: ActivityClient;
  /** notifications: the signed-in user's notification threads. */
  notifications: NotificationsClient;
  /** hooks: webhook definitions (and test deliveries). */
  hooks: HooksClient;
  /** hooks: webhook deliveries and redelivery. */
  hookDeliveries: HookDeliveriesClient;
  /** migrations: imports, pull mirrors and push mirrors. */
  migrations: MigrationsClient;
  /** accounts: users' GPG keys. */
  gpgKeys: GpgKeysClient;
  /** repos: repositories and every repository permission decision. */
  repos: ReposClient;
  /** repos: collaborators and repository teams. */
  collaborators: CollaboratorsClient;
  /** repos: topics. */
  topics: TopicsClient;
  /** repos: branch protection rules. */
  branchProtections: BranchProtectionsClient;
  /** repos: commit statuses. */
  commitStatuses: CommitStatusesClient;
  /** repos: protected tag rules, and who may control which tags. */
  tagProtections: TagProtectionsClient;
  /** repos: releases. */
  releases: ReleasesClient;
  /** repos: attachments' metadata (their bytes are in the object store). */
  attachments: AttachmentsClient;
  /** git-storage: branches and tags. */
  refs: RefsClient;
  /** git-storage: history. */
  commits: CommitsClient;
  /** git-storage: trees, blobs, file writes, archives. */
  contents: ContentsClient;
  /** git-storage: smart HTTP (upload-pack / receive-pack streams). */
  smartHttp: SmartHttpClient;
  /** git-storage: pull-request comparisons, diffs and patches. */
  gitMerge: GitMergeClient;
  /** git-storage: languages and licences of a revision. */
  analysis: AnalysisClient;
  /** social: stars. */
  stars: StarsClient;
  /** social: watches. */
  watches: WatchesClient;
  /** social: reactions on issues and comments. */
  reactions: ReactionsClient;
  /** issues: issues. */
  issues: IssuesClient;
  /** issues: repository and organization labels, labels on issues. */
  labels: LabelsClient;
  /** issues: milestones. */
  milestones: MilestonesClient;
  /** issues: comments. */
  comments: CommentsClient;
  /** issues: issue subscriptions. */
  issueSubscriptions: IssueSubscriptionsClient;
  /** issues: tracked times and stopwatches. */
  timeTracking: TimeTrackingClient;
  /** issues: pull requests and merges. */
  pulls: PullsClient;
  /** issues: pull-request reviews and review requests. */
  reviews: ReviewsClient;
}

/** gRPC clients to the services (`[services.<name>] ADDR`), each with its own circuit breaker. */
export function createServiceClients(config: CairnConfig, logger: Logger): GatewayClients & { close(): void } {
  const handles: RpcClientHandle[] = [];
  const client = <D extends Parameters<typeof createRpcClient>[0]>(definition: D, service: GrpcServiceName): RpcClient<D> => {
    const created = createRpcClient(definition, { target: config.services[service].addr, service, caller: 'gateway', logger, deadlineMs: config.rpc.deadlineMs });
    handles.push(created);
    return created;
  };
  const clients: GatewayClients = {
    users: client(UserServiceService, 'accounts'),
    tokens: client(AccessTokenServiceService, 'accounts'),
    orgs: client(OrgServiceService, 'accounts'),
    teams: client(TeamServiceService, 'accounts'),
    gpgKeys: client(GpgKeyServiceService, 'accounts'),
    activity: client(ActivityServiceService, 'notifications'),
    notifications: client(NotificationServiceService, 'notifications'),
    hooks: client(HookServiceService, 'hooks'),
    hookDeliveries: client(HookDeliveryServiceService, 'hooks'),
    migrations: client(MigrationServiceService, 'migrations'),
    repos: client(RepoServiceService, 'repos'),
    collaborators: client(CollaboratorServiceService, 'repos'),
    topics: client(TopicServiceService, 'repos'),
    branchProtections: client(BranchProtectionServiceService, 'repos'),
    commitStatuses: client(CommitStatusServiceService, 'repos'),
    tagProtections: client(TagProtectionServiceService, 'repos'),
    releases: client(ReleaseServiceService, 'repos'),
    attachments: client(AttachmentServiceService, 'repos'),
    refs: client(RefServiceService, 'git-storage'),
    commits: client(CommitServiceService, 'git-storage'),
    contents: client(ContentServiceService, 'git-storage'),
    smartHttp: client(SmartHttpServiceService, 'git-storage'),
    gitMerge: client(MergeServiceService, 'git-storage'),
    analysis: client(AnalysisServiceService, 'git-storage'),
    stars: client(StarServiceService, 'social'),
    watches: client(WatchServiceService, 'social'),
    reactions: client(ReactionServiceService, 'social'),
    issues: client(IssueServiceService, 'issues'),
    labels: client(LabelServiceService, 'issues'),
    milestones: client(MilestoneServiceService, 'issues'),
    comments: client(CommentServiceService, 'issues'),
    issueSubscriptions: client(IssueSubscriptionServiceService, 'issues'),
    timeTracking: client(TimeTrackingServiceService, 'issues'),
    pulls: client(PullServiceService, 'issues'),
    reviews: client(ReviewServiceService, 'issues'),
  };
  return {
    ...clients,
    close: () => {
      for (const handle of handles) handle.close();
    },
  };
}
