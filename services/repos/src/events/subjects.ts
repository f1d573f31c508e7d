/**
 * The events repos publishes (a public interface: payloads in proto/cairn/repos/v1/events.proto) and the streams
 * it consumes.
 */
export const REPOS_STREAM = 'CAIRN_REPOS';
/** Only repos defines CAIRN_REPOS: its consumers name the stream and a filter, never these subjects. */
export const REPOS_SUBJECTS: readonly string[] = ['cairn.repo.>', 'cairn.collaborator.>', 'cairn.commit_status.>', 'cairn.release.>'];

export const Subject = {
  repoCreated: 'cairn.repo.created',
  repoUpdated: 'cairn.repo.updated',
  repoRenamed: 'cairn.repo.renamed',
  repoDeleted: 'cairn.repo.deleted',
  repoForked: 'cairn.repo.forked',
  repoTransferRequested: 'cairn.repo.transfer_requested',
  repoTransferred: 'cairn.repo.transferred',
  /** RepoTeamAdded / RepoTeamRemoved: a team linked to or unlinked from a repository (the gateway's caches forget). */
  repoTeamAdded: 'cairn.repo.team_added',
  repoTeamRemoved: 'cairn.repo.team_removed',
  collaboratorAdded: 'cairn.collaborator.added',
  collaboratorRemoved: 'cairn.collaborator.removed',
  /** CommitStatusCreated: a CI status reported for a commit (issues' `issues-automerge` tries scheduled merges). */
  commitStatusCreated: 'cairn.commit_status.created',
  /** ReleasePublished / ReleaseUpdated / ReleaseDeleted: published releases only (drafts publish nothing). */
  releasePublished: 'cairn.release.published',
  releaseUpdated: 'cairn.release.updated',
  releaseDeleted: 'cairn.release.deleted',
} as const;

/**
 * accounts' stream (services/accounts/src/events/subjects.ts): owners' names and visibility, and deletions of owners
 * and teams. accounts defines it; the consumer binds to it (and waits for it if accounts has not run yet).
 */
export const ACCOUNTS_STREAM = 'CAIRN_ACCOUNTS';
export const AccountsSubject = {
  userUpdated: 'cairn.user.updated',
  userRenamed: 'cairn.user.renamed',
  userDeleted: 'cairn.user.deleted',
  orgUpdated: 'cairn.org.updated',
  orgRenamed: 'cairn.org.renamed',
  orgDeleted: 'cairn.org.deleted',
  teamDeleted: 'cairn.team.deleted',
} as const;
/** The durable consumer of accounts' events (`<consumer-service>-<purpose>`). */
export const ACCOUNTS_CONSUMER = 'repos-accounts';
/** Every subject of the stream; the handler picks the ones it acts on. */
export const ACCOUNTS_FILTER = 'cairn.>';

/** git-storage's stream (it defines it): pushes change whether a repository is empty, its size and branches. */
export const GIT_STREAM = 'CAIRN_GIT';
export const GitSubject = { pushed: 'cairn.git.pushed' } as const;
export const GIT_CONSUMER = 'repos-git';

/** issues' stream (it defines it): a deleted issue's or comment's attachments go with it. */
export const ISSUES_STREAM = 'CAIRN_ISSUES';
export const IssuesSubject = { issueDeleted: 'cairn.issue.deleted', commentDeleted: 'cairn.issue_comment.deleted' } as const;
export const ISSUE_ATTACHMENTS_CONSUMER = 'repos-issue-attachments';
export const COMMENT_ATTACHMENTS_CONSUMER = 'repos-comment-attachments';
