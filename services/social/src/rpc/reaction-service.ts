/**
 * ReactionService: reactions on issues and comments (proto/cairn/social/v1/social_service.proto). The gateway has
 * checked that the user may read the issue; this decides the rest (allowed kinds, locked issues) and announces
 * every reaction added or removed, only when one was.
 */
import type { Reaction, ReactionServiceService } from '@cairn/proto/cairn/social/v1/social_service';
import { type AsyncServiceOf, CairnError, Code } from '@cairn/rpc';
import { requireTarget, requireUserId } from '../domain/ids';
import { pageWindow } from '../domain/paging';
import { requireAllowedContent, requireMayChange, requireUserName } from '../domain/reaction-rules';
import { enqueueReactionAdded, enqueueReactionRemoved } from '../events/outbox';
import { countReactions, deleteReaction, findReaction, insertReaction, listReactions, type ReactionRow } from '../store/reactions';
import type { SocialContext } from './context';
import { guard } from './guard';

/** PostgreSQL text cannot hold NUL, so no stored reaction has one. */
const NUL = '\u0000';
/** Inserts tried while a twin keeps adding and removing the same reaction. */
const MAX_ATTEMPTS = 3;

function toReaction(row: ReactionRow): Reaction {
  return {
    userId: row.user_id,
    userName: row.user_name,
    content: row.content,
    created: row.created,
    originalAuthor: row.original_author,
    originalService: row.original_service,
  };
}

export function createReactionService({ db, allowedReactions }: SocialContext): AsyncServiceOf<typeof ReactionServiceService> {
  return {
    async listReactions(request) {
      const target = requireTarget(request.target);
      const [rows, total] = await guard(() =>
        Promise.all([
          listReactions(db.pool, target, allowedReactions, pageWindow(request.page)),
          countReactions(db.pool, target, allowedReactions),
        ]),
      );
      return { reactions: rows.map(toReaction), total };
    },

    async createReaction(request) {
      const target = requireTarget(request.target);
      const userId = requireUserId(request.userId);
      const userName = requireUserName(request.userName);
      // Gitea checks the lock before the kind.
      requireMayChange(target, request.canWrite);
      const content = requireAllowedContent(allowedReactions, request.content);
      const answer = await guard(() =>
        db.pool.transaction(async (tx) => {
          // The existing reaction may be removed between a conflicting insert and the look-up: then insert again.
          for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            const inserted = await insertReaction(tx, { target, userId, userName, content });
            if (inserted !== null) {
              await enqueueReactionAdded(tx, inserted);
              return { row: inserted, created: true };
            }
            const existing = await findReaction(tx, target, userId, content);
            if (existing !== null) return { row: existing, created: false };
          }
          throw new CairnError(Code.ABORTED, 'conflicting concurrent update, try again');
        }),
      );
      return { reaction: toReaction(answer.row), created: answer.created };
    },

    async deleteReaction(request) {
      const target = requireTarget(request.target);
      const userId = requireUserId(request.userId);
      requireMayChange(target, request.canWrite);
      // Any kind may be taken back, even one no longer allowed (Gitea); one that was never there changes nothing.
      if (request.content.includes(NUL)) return {};
      await guard(() =>
        db.pool.transaction(async (tx) => {
          const removed = await deleteReaction(tx, target, userId, request.content);
          if (removed !== null) await enqueueReactionRemoved(tx, removed);
        }),
      );
      return {};
    },
  };
}
