/** What every hooks handler, consumer and the deliverer need. */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import type { CommitServiceService, MergeServiceService, RefServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import type { IssueServiceService } from '@cairn/proto/cairn/issues/v1/issues_service';
import type { PullServiceService, ReviewServiceService } from '@cairn/proto/cairn/issues/v1/pulls_service';
import type { AttachmentServiceService } from '@cairn/proto/cairn/repos/v1/releases_service';
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { StarServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import type { AsyncClientOf } from '@cairn/rpc';
import type { Deliverer } from '../delivery/deliverer';

/**
 * The services payloads are built from (users, repositories, commits): every client @cairn/gitea-json's converters
 * call (ConvertClients), so payloads are the gateway's JSON, plus the commit reads of push payloads.
 */
export interface HooksClients {
  users: AsyncClientOf<typeof UserServiceService>;
  teams: AsyncClientOf<typeof TeamServiceService>;
  repos: AsyncClientOf<typeof RepoServiceService>;
  attachments: AsyncClientOf<typeof AttachmentServiceService>;
  stars: AsyncClientOf<typeof StarServiceService>;
  issues: AsyncClientOf<typeof IssueServiceService>;
  pulls: AsyncClientOf<typeof PullServiceService>;
  reviews: AsyncClientOf<typeof ReviewServiceService>;
  commits: AsyncClientOf<typeof CommitServiceService>;
  refs: AsyncClientOf<typeof RefServiceService>;
  gitMerge: AsyncClientOf<typeof MergeServiceService>;
}

export interface HooksContext {
  db: Database;
  logger: Logger;
  config: Pick<CairnConfig, 'server' | 'service' | 'webhook' | 'security'>;
  clients: HooksClients;
  /** The delivery loop, for handlers that create tasks (redelivery, TestHook wake it); unset before it starts. */
  deliverer?: Pick<Deliverer, 'wake'>;
}
