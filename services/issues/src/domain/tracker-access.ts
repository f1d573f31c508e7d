/**
 * A repository's labels and milestones, as Gitea guards them (reqRepoReader / reqRepoWriter on issues or pull
 * requests): readers of either unit read them; signed-in writers of either change them, in a repository that is
 * not archived.
 */
import type { RepoScope } from '@cairn/proto/cairn/issues/v1/issues_service';
import { type Access, accessOf, requireNotArchived, requireReadEither, requireSignedIn, requireWriteEither } from './permissions';

export function trackerReader(scope: RepoScope | undefined): Access {
  const access = accessOf(scope);
  requireReadEither(access);
  return access;
}

export function trackerWriter(scope: RepoScope | undefined): Access {
  const access = accessOf(scope);
  requireSignedIn(access);
  requireWriteEither(access);
  requireNotArchived(access);
  return access;
}
