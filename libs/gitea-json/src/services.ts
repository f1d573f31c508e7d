/**
 * What the converters call, and nothing more: the configuration they read, the exact client methods they batch
 * through, and the optional public-user cache. Each converter asks for the narrowest slice (`ConvertWith<…>`), so a
 * service with a few clients (hooks building webhook payloads) can call those that need only what it has; the
 * gateway passes its GatewayServices whole.
 */
import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import type { User, UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { AttachmentServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { StarServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import type { AsyncClientOf } from '@cairn/rpc';

/** The settings the JSON depends on: addresses under `[server] ROOT_URL` and users' hidden e-mail domain. */
export interface ConvertConfig {
  server: Pick<CairnConfig['server'], 'rootUrl'>;
  service: Pick<CairnConfig['service'], 'noReplyAddress'>;
}

/** The client methods the converters call, one batch per kind of data. */
export interface ConvertClients {
  users: Pick<AsyncClientOf<typeof UserServiceService>, 'batchGetUsers' | 'batchGetUsersByEmail'>;
  teams: Pick<AsyncClientOf<typeof TeamServiceService>, 'batchGetTeams'>;
  repos: Pick<AsyncClientOf<typeof RepoServiceService>, 'batchGetRepositories'>;
  attachments: Pick<AsyncClientOf<typeof AttachmentServiceService>, 'batchListAttachments'>;
  stars: Pick<AsyncClientOf<typeof StarServiceService>, 'getRepoCounters'>;
  issues: Pick<AsyncClientOf<typeof IssueServiceService>, 'batchGetIssues' | 'getRepoIssueCounters'>;
  reviews: Pick<AsyncClientOf<typeof ReviewServiceService>, 'listReviews'>;
  refs: Pick<AsyncClientOf<typeof RefServiceService>, 'getBranch'>;
  gitMerge: Pick<AsyncClientOf<typeof MergeServiceService>, 'listChangedFiles'>;
}

/** Users as anonymous callers see them, kept by the caller (the gateway's cache/public-users.ts). */
export interface PublicUsers {
  /** The users of `ids` it knows, the others through `load`, which it is handed only the missing ids. */
  usersByIds(ids: Iterable<number>, load: (missing: number[]) => Promise<readonly User[]>): Promise<Map<number, User>>;
}

export interface ConvertServices {
  config: ConvertConfig;
  logger: Logger;
  clients: ConvertClients;
  /** When set, anonymous callers' users come from it (only while events keep it honest). */
  publicUsers?: PublicUsers;
}

/** The configuration and the clients `C` only: what one converter needs. */
export interface ConvertWith<C extends keyof ConvertClients> {
  config: ConvertConfig;
  clients: Pick<ConvertClients, C>;
}
