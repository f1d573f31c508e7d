/**
 * repos' commit statuses → Gitea's `CommitStatus` and `CombinedStatus` (services/convert/status.go). Creators
 * arrive in one accounts batch for the whole list.
 */
import { goTime } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { CommitStatus } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { ConvertWith } from './services';
import type { RepoLinks } from './commit';
import type { ApiRepository } from './repository';
import { type ApiUser, toApiUser } from './user';

/** Gitea's `CommitStatus`: the request's `state` is answered as `status`. */
export interface ApiCommitStatus {
  id: number;
  status: string;
  target_url: string;
  description: string;
  url: string;
  context: string;
  creator: ApiUser | null;
  created_at: string;
  updated_at: string;
}

/** Gitea's `CombinedStatus`. */
export interface ApiCombinedStatus {
  state: string;
  sha: string;
  total_count: number;
  statuses: ApiCommitStatus[];
  repository: ApiRepository;
  commit_url: string;
  url: string;
}

export async function toApiCommitStatuses(
  services: ConvertWith<'users'>,
  viewer: Actor | undefined,
  statuses: readonly CommitStatus[],
  links: RepoLinks,
): Promise<ApiCommitStatus[]> {
  const creatorIds = [...new Set(statuses.map((status) => status.creatorId).filter((id) => id > 0))];
  const { users } = creatorIds.length === 0 ? { users: [] } : await services.clients.users.batchGetUsers({ ids: creatorIds, viewer });
  const creators = new Map(users.map((user) => [user.id, toApiUser(user, { rootUrl: services.config.server.rootUrl })]));
  return statuses.map((status) => ({
    id: status.id,
    status: status.state,
    target_url: status.targetUrl,
    description: status.description,
    url: `${links.api}/statuses/${encodeURIComponent(status.sha)}`,
    context: status.context,
    creator: creators.get(status.creatorId) ?? null,
    created_at: goTime(status.created),
    updated_at: goTime(status.updated),
  }));
}

export function toApiCombinedStatus(
  state: string,
  sha: string,
  totalCount: number,
  statuses: ApiCommitStatus[],
  repository: ApiRepository,
  links: RepoLinks,
): ApiCombinedStatus {
  const commitUrl = `${links.api}/commits/${encodeURIComponent(sha)}`;
  return { state, sha, total_count: totalCount, statuses, repository, commit_url: commitUrl, url: `${commitUrl}/status` };
}
