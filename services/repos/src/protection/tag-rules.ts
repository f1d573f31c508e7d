/**
 * Protected tags (Gitea's models/git/protected_tag.go IsUserAllowedToControlTag). Placeholder of the session
 * contract: the tag protection work replaces it with the real rules before this lands.
 */
import type { ReposContext } from '../rpc/context';
import type { RepoRow } from '../store/repositories';

/** Whether `actorId` may create, move or delete the tag `tagName` in `repo`. */
export async function mayControlTag(_context: ReposContext, _repo: Pick<RepoRow, 'id' | 'ownerId' | 'ownerType'>, _actorId: number, _tagName: string): Promise<boolean> {
  return true;
}
