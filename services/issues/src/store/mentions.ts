/**
 * Mentions (`issue_mentions`): the users an issue's body and its comments name with `@name`. Names are resolved
 * through accounts as the writer sees them: a name that is no account's, one the writer may not see, an old name
 * (a redirect) and an organization are no mention.
 */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';
import { CairnError, Code, type Viewer, actorOf } from '@cairn/rpc';
import { findMentionedNames } from '@cairn/text';
import type { IssuesContext } from '../rpc/context';

/** accounts' ResolveName type of an individual user. */
const INDIVIDUAL = 0;

/** The user ids `body` mentions, as `viewer` may see them (at most 50 distinct names are looked up). */
export async function resolveMentions(context: Pick<IssuesContext, 'users'>, body: string, viewer: Viewer): Promise<number[]> {
  const names = findMentionedNames(body);
  if (names.length === 0) return [];
  const actor = actorOf(viewer);
  const ids = await Promise.all(
    names.map(async (name) => {
      try {
        const resolved = await context.users.resolveName({ name, viewer: actor });
        return resolved.type === INDIVIDUAL && !resolved.redirect && resolved.id > 0 ? resolved.id : 0;
      } catch (error) {
        // Unknown and hidden names are no mention; anything else (accounts unreachable) fails the change.
        if (error instanceof CairnError && (error.code === Code.NOT_FOUND || error.code === Code.INVALID_ARGUMENT)) return 0;
        throw error;
      }
    }),
  );
  return [...new Set(ids.filter((id) => id > 0))];
}

/** Records `userIds` as mentioned in the issue; answers those that were not mentioned in it before. */
export async function insertMentions(db: CommonQueryMethods, issueId: number, userIds: readonly number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const inserted = await db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    INSERT INTO issue_mentions (issue_id, user_id)
    SELECT ${issueId}, unnest(${sql.array(userIds, 'int8')})
    ON CONFLICT DO NOTHING
    RETURNING user_id`);
  return [...inserted];
}

/**
 * Resolves the mentions of `body` (an issue's body or a comment's) and records them on the issue, in the caller's
 * transaction; answers the users mentioned in this issue for the first time (whom notifications tell).
 */
export async function recordMentions(
  context: Pick<IssuesContext, 'users'>,
  tx: DatabaseTransactionConnection,
  issueId: number,
  body: string,
  viewer: Viewer,
): Promise<number[]> {
  return insertMentions(tx, issueId, await resolveMentions(context, body, viewer));
}
