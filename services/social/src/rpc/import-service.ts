/**
 * ImportService (proto/cairn/social/v1/import_service.proto): a migrated repository's reactions on issues and
 * comments (Gitea's services/migrations/gitea_uploader.go, the reactions of CreateIssues and CreateComments). One
 * batch, one transaction; reactions already there stay, so a resumed import may resend a batch. No event per reaction.
 */
import { ImportServiceService } from '@cairn/proto/cairn/social/v1/import_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { toCairnError } from '@cairn/db';
import { insertImportedReactions } from '../store/reactions';
import type { SocialContext } from './context';

function positive(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

export function createImportService({ db }: SocialContext): AsyncServiceOf<typeof ImportServiceService> {
  return {
    async importReactions(request) {
      if (!positive(request.repoId)) throw CairnError.invalid('repo_id is required', { reason: 'repo_required' });
      const reactions = request.reactions.map((reaction) => {
        if (!positive(reaction.issueId) || reaction.commentId < 0 || !positive(reaction.userId) || reaction.userName === '' || reaction.content === '') {
          throw CairnError.invalid('an imported reaction needs its issue, user and content', { reason: 'reaction_invalid' });
        }
        const original = reaction.originalAuthor !== '';
        return {
          target: { repoId: request.repoId, issueId: reaction.issueId, commentId: reaction.commentId },
          userId: reaction.userId,
          userName: reaction.userName,
          content: reaction.content,
          originalAuthor: reaction.originalAuthor,
          // Gitea's unique key tells original authors apart by their source id; 0 is a local user's own reaction.
          originalAuthorId: original ? reaction.originalAuthorId || -1 : 0,
          originalService: original ? reaction.originalService : '',
        };
      });
      try {
        const created = await db.pool.transaction((tx) => insertImportedReactions(tx, reactions));
        return { created };
      } catch (error) {
        throw toCairnError(error);
      }
    },
  };
}
