/** What every issues handler needs: the database, the configuration and the clients of the services issues calls. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type {
  BranchProtectionServiceService,
  CollaboratorServiceService,
  CommitStatusServiceService,
  RepoServiceService,
} from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncClientOf } from '@cairn/rpc';

export type UsersClient = AsyncClientOf<typeof UserServiceService>;
export type TeamsClient = AsyncClientOf<typeof TeamServiceService>;
export type CollaboratorsClient = AsyncClientOf<typeof CollaboratorServiceService>;
export type GitMergeClient = AsyncClientOf<typeof MergeServiceService>;
export type GitRefsClient = AsyncClientOf<typeof RefServiceService>;
export type ReposClient = AsyncClientOf<typeof RepoServiceService>;
export type BranchProtectionsClient = AsyncClientOf<typeof BranchProtectionServiceService>;
export type CommitStatusesClient = AsyncClientOf<typeof CommitStatusServiceService>;

export interface IssuesContext {
  db: Database;
  logger: Logger;
  config: CairnConfig;
  /** accounts: who an @name in a body stands for (ResolveName, as the poster sees it). */
  users: UsersClient;
  /** accounts: organization teams (team review requests: names, access, members). */
  teams: TeamsClient;
  /** git-storage: pull-request heads, merge checks, comparisons and merges; branches. */
  git: { merge: GitMergeClient; refs: GitRefsClient };
  /** repos: repositories (pull-request heads in forks), branch protection and commit statuses for merge checks. */
  repos: { repos: ReposClient; protections: BranchProtectionsClient; statuses: CommitStatusesClient; collaborators: CollaboratorsClient };
}
