/**
 * What a migration moves, source-neutral (Gitea's modules/migration: repo.go, label.go, milestone.go, release.go,
 * issue.go, comment.go, reaction.go, pullrequest.go, review.go). Downloaders (gitea/gogs/Cairn, github, gitlab, a
 * dump on disk) produce these; uploaders (Cairn's services through the migrations service, a dump on disk) take
 * them. Field names follow Gitea's Go fields (camelCased); the dump format's YAML keys are Gitea's yaml tags.
 */
import type { Readable } from 'node:stream';

export interface MigrationRepository {
  name: string;
  owner: string;
  isPrivate: boolean;
  isMirror: boolean;
  description: string;
  /** Where the git data is cloned from (credentials never in it). */
  cloneUrl: string;
  originalUrl: string;
  defaultBranch: string;
}

export interface Label {
  name: string;
  /** Without '#', as Gitea's migration Label (e.g. "ee0701"). */
  color: string;
  description: string;
  exclusive: boolean;
}

export interface Milestone {
  title: string;
  description: string;
  deadline?: Date;
  created: Date;
  updated?: Date;
  closed?: Date;
  /** "open" or "closed". */
  state: 'open' | 'closed';
}

export interface Reaction {
  userId: number;
  userName: string;
  /** Gitea's reaction names ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"). */
  content: string;
}

export interface ReleaseAsset {
  id: number;
  name: string;
  contentType?: string;
  size?: number;
  downloadCount?: number;
  created: Date;
  updated: Date;
  /** Where the bytes are: an http(s) URL of the source (fetched through the outbound guard) or, in a dump, a path. */
  downloadUrl?: string;
}

export interface Release {
  tagName: string;
  targetCommitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  publisherId: number;
  publisherName: string;
  publisherEmail: string;
  assets: ReleaseAsset[];
  created: Date;
  published: Date;
}

export interface Issue {
  /** The number in the source, kept in the destination (Gitea keeps it). */
  number: number;
  posterId: number;
  posterName: string;
  posterEmail: string;
  title: string;
  content: string;
  ref: string;
  /** A milestone's title ("" none). */
  milestone: string;
  state: 'open' | 'closed';
  isLocked: boolean;
  created: Date;
  updated: Date;
  closed?: Date;
  labels: Label[];
  reactions: Reaction[];
  /** User names. */
  assignees: string[];
  foreignIndex: number;
}

export interface Comment {
  /** The issue's (or pull request's) number. */
  issueIndex: number;
  /** The comment's id in the source. */
  index: number;
  /** Gitea's comment type name ("comment" or "" for a plain comment; others as Gitea's CommentType strings). */
  commentType: string;
  posterId: number;
  posterName: string;
  posterEmail: string;
  created: Date;
  updated: Date;
  content: string;
  reactions: Reaction[];
  meta?: Record<string, unknown>;
}

export interface PullRequestBranch {
  cloneUrl: string;
  ref: string;
  sha: string;
  repoName: string;
  ownerName: string;
}

export interface PullRequest {
  number: number;
  title: string;
  posterName: string;
  posterId: number;
  posterEmail: string;
  content: string;
  milestone: string;
  state: 'open' | 'closed';
  created: Date;
  updated: Date;
  closed?: Date;
  labels: Label[];
  /** The patch's URL in the source (or path in a dump). */
  patchUrl: string;
  merged: boolean;
  mergedTime?: Date;
  mergeCommitSha: string;
  head: PullRequestBranch;
  base: PullRequestBranch;
  assignees: string[];
  isLocked: boolean;
  reactions: Reaction[];
  foreignIndex: number;
  isDraft: boolean;
  /**
   * The merge base the source recorded, when its API shows one (Gitea's and Cairn's `merge_base`); an import prefers
   * it to base.sha (the base branch's tip when listed, which for a merged pull request already holds the head).
   */
  mergeBase?: string;
}

export interface ReviewComment {
  id: number;
  inReplyTo: number;
  content: string;
  treePath: string;
  diffHunk: string;
  position: number;
  line: number;
  commitId: string;
  posterId: number;
  reactions: Reaction[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Review {
  id: number;
  issueIndex: number;
  reviewerId: number;
  reviewerName: string;
  official: boolean;
  commitId: string;
  content: string;
  createdAt: Date;
  /** "PENDING", "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "REQUEST_REVIEW". */
  state: string;
  comments: ReviewComment[];
}

/** A comment from a repository-wide listing, and whether it is on a pull request (else on an issue). */
export interface RepoComment {
  comment: Comment;
  onPullRequest: boolean;
}

/** Which items a migration moves (Gitea's MigrateOptions; `mirror` moves git data only). */
export interface MigrationItems {
  wiki: boolean;
  milestones: boolean;
  labels: boolean;
  issues: boolean;
  comments: boolean;
  pullRequests: boolean;
  releases: boolean;
  releaseAssets: boolean;
}

/** One page of a paged list; `isEnd` once the source has no more (Gitea's downloaders' isEnd). */
export interface Page<T> {
  items: T[];
  isEnd: boolean;
}

/**
 * A source (Gitea's base.Downloader). Every HTTP request a downloader makes goes through @cairn/outbound's guard with
 * the `[migrations]` policy; pagination and rate limits (Retry-After, X-RateLimit-*) are the downloader's business.
 */
export interface Downloader {
  getRepoInfo(): Promise<MigrationRepository>;
  getTopics(): Promise<string[]>;
  getMilestones(): Promise<Milestone[]>;
  getReleases(): Promise<Release[]>;
  getLabels(): Promise<Label[]>;
  /** 1-based pages. */
  getIssues(page: number, perPage: number): Promise<Page<Issue>>;
  /** Every comment of one issue or pull request, oldest first. */
  getComments(issueNumber: number): Promise<Comment[]>;
  /**
   * Optional (Gitea's SupportGetRepoComments/GetAllComments, services/migrations/github.go): one page (1-based) of
   * every plain comment of the repository, issues' and pull requests' alike, oldest first, in an order new comments
   * only extend. A downloader that has it saves a request per issue: the driver then moves comments in one walk after
   * the issues and pull requests, as Gitea's migrate.go does.
   */
  getAllComments?(page: number, perPage: number): Promise<Page<RepoComment>>;
  getPullRequests(page: number, perPage: number): Promise<Page<PullRequest>>;
  getReviews(pullNumber: number): Promise<Review[]>;
  /** A release asset's bytes (Gitea's ReleaseAsset.DownloadFunc/DownloadURL), through the guard with the source's auth. */
  openReleaseAsset(asset: ReleaseAsset): Promise<Readable>;
  /** A pull request's patch (from its patchUrl), or undefined when the source has none. */
  getPullPatch(pull: PullRequest): Promise<Buffer | undefined>;
}

/**
 * A destination (Gitea's base.Uploader). Each create is idempotent for items already created (a resumed migration
 * sends some again): keyed by the source's numbers, ids and names.
 */
export interface Uploader {
  createTopics(topics: string[]): Promise<void>;
  createMilestones(milestones: Milestone[]): Promise<void>;
  createReleases(releases: Release[]): Promise<void>;
  createLabels(labels: Label[]): Promise<void>;
  createIssues(issues: Issue[]): Promise<void>;
  createComments(comments: Comment[]): Promise<void>;
  createPullRequests(pulls: PullRequest[]): Promise<void>;
  createReviews(reviews: Review[]): Promise<void>;
}
