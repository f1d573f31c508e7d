/**
 * Which of a user's activity repositories a viewer may read (the repository filter of Gitea's heatmap,
 * `AccessibleRepoIDsQuery`): the repos service decides, as it does every repository permission question, in one
 * RepoService.FilterReadable batch per heatmap.
 */
import type { RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import type { AsyncClientOf } from '@cairn/rpc';
import { actorOf, type Viewer } from '../domain/viewer';

/** The one RepoService call notifications makes: the repos client in production, an in-memory fake in tests. */
export type RepoAccess = Pick<AsyncClientOf<typeof RepoServiceService>, 'filterReadable'>;

/**
 * The repositories among `repoIds` that `viewer` may read now (deleted ones are gone, so not readable); with
 * `publicOnly` (a public-only token), only the public ones of public owners among them.
 */
export async function readableRepoIds(repoAccess: RepoAccess, viewer: Viewer, repoIds: readonly number[], publicOnly: boolean): Promise<readonly number[]> {
  if (repoIds.length === 0) return [];
  const response = await repoAccess.filterReadable({ viewer: actorOf(viewer), repoIds: [...repoIds], publicOnly });
  return response.repoIds;
}
