/**
 * Whether a viewer may see a user (Gitea's `IsUserVisibleToViewer` with the API's `individualPermsChecker`):
 * public users are seen by everyone, limited users by signed-in users who are not restricted, private users
 * only by themselves and site administrators. (Gitea's followers and organisation co-members see a private
 * user on some pages; the API's user routes do not, so neither rule is needed here.)
 */
import type { User } from '@cairn/proto/cairn/accounts/v1/accounts_service';

export function isUserVisibleTo(user: User, viewer: User | undefined): boolean {
  if (viewer !== undefined && (viewer.isAdmin || viewer.id === user.id)) return true;
  switch (user.visibility) {
    case 'limited':
      return viewer !== undefined && !viewer.restricted;
    case 'private':
      return false;
    default:
      return true;
  }
}
