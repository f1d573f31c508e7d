/**
 * Reactions follow what they hang on, through the consumers on the in-process bus: a deleted repository, issue,
 * comment or user takes its reactions along (and nobody else's, and nothing is announced for them), a renamed
 * user's reactions carry the new name, a redelivered event changes nothing more, and an unreadable issue event is
 * dropped without blocking the next.
 */
import type { ReactionTarget } from '@cairn/proto/cairn/social/v1/social_service';
import { eventually } from '@cairn/testing';
import { ConsumedSubject } from '../src/index';
import { startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});

afterAll(async () => {
  await h?.stop();
});

function target(repoId: number, issueId: number, commentId = 0): ReactionTarget {
  return { repoId, issueId, commentId, issueLocked: false };
}

async function react(t: ReactionTarget, userId: number, content = '+1'): Promise<void> {
  await h.reactions.createReaction({ target: t, userId, userName: `user${userId}`, content, canWrite: false });
}

/** `issue:comment:user:content` of every reaction on the issue, in id order. */
async function reactionsOn(column: 'repo_id' | 'issue_id' | 'user_id', id: number): Promise<string[]> {
  const { rows } = await h.sql.query<{ key: string }>(
    `SELECT issue_id || ':' || comment_id || ':' || user_id || ':' || content AS key FROM reactions WHERE ${column} = $1 ORDER BY id`,
    [id],
  );
  return rows.map((row) => row.key);
}

it('forgets a deleted repository’s reactions, once, announcing nothing', async () => {
  await react(target(11, 111), 1);
  await react(target(11, 111, 1111), 2);
  await react(target(11, 112), 1);
  await react(target(12, 121), 1);
  const before = await h.lastSeq();

  const eventId = await h.publishRepoDeleted(11);
  await eventually(async () => expect(await reactionsOn('repo_id', 11)).toEqual([]));
  expect(await reactionsOn('repo_id', 12)).toEqual(['121:0:1:+1']);

  // Redelivered under the same id after a new reaction (a stand-in for anything made since): not applied again.
  await react(target(11, 113), 3);
  await h.publishRepoDeleted(11, eventId);
  await h.publishRepoDeleted(12);
  await eventually(async () => expect(await reactionsOn('repo_id', 12)).toEqual([]));
  expect(await reactionsOn('repo_id', 11)).toEqual(['113:0:3:+1']);
  expect((await h.outbox(before)).map((event) => event.subject)).toEqual(['cairn.reaction.created']);
});

it('forgets a deleted issue’s reactions and its comments’, once', async () => {
  await react(target(21, 211), 1);
  await react(target(21, 211, 2111), 2);
  await react(target(21, 211, 2112), 3, 'heart');
  await react(target(21, 212), 1);

  const eventId = await h.publishIssueDeleted(21, 211);
  await eventually(async () => expect(await reactionsOn('issue_id', 211)).toEqual([]));
  expect(await reactionsOn('issue_id', 212)).toEqual(['212:0:1:+1']);

  await react(target(21, 211), 4);
  await h.publishIssueDeleted(21, 211, eventId);
  await h.publishIssueDeleted(21, 212);
  await eventually(async () => expect(await reactionsOn('issue_id', 212)).toEqual([]));
  expect(await reactionsOn('issue_id', 211)).toEqual(['211:0:4:+1']);
});

it('forgets a deleted comment’s reactions only, once', async () => {
  await react(target(31, 311), 1);
  await react(target(31, 311, 3111), 1);
  await react(target(31, 311, 3111), 2, 'eyes');
  await react(target(31, 311, 3112), 1);

  const eventId = await h.publishCommentDeleted(31, 311, 3111);
  await eventually(async () => expect(await reactionsOn('issue_id', 311)).toEqual(['311:0:1:+1', '311:3112:1:+1']));

  await react(target(31, 311, 3111), 3);
  await h.publishCommentDeleted(31, 311, 3111, eventId);
  await h.publishCommentDeleted(31, 311, 3112);
  await eventually(async () => expect(await reactionsOn('issue_id', 311)).toEqual(['311:0:1:+1', '311:3111:3:+1']));
});

it('forgets a deleted user’s reactions, once', async () => {
  await react(target(41, 411), 401);
  await react(target(41, 411, 4111), 401, 'rocket');
  await react(target(41, 411), 402);

  const eventId = await h.publishUserDeleted(401);
  await eventually(async () => expect(await reactionsOn('user_id', 401)).toEqual([]));
  expect(await reactionsOn('user_id', 402)).toEqual(['411:0:402:+1']);

  await react(target(41, 412), 401);
  await h.publishUserDeleted(401, eventId);
  await h.publishUserDeleted(402);
  await eventually(async () => expect(await reactionsOn('user_id', 402)).toEqual([]));
  expect(await reactionsOn('user_id', 401)).toEqual(['412:0:401:+1']);
});

it('keeps a renamed user’s name current on their reactions; an old rename redelivered does not undo a newer one', async () => {
  await react(target(51, 511), 501);
  await react(target(51, 511, 5111), 501, 'heart');
  await react(target(51, 511), 502);
  const names = async (userId: number) => {
    const { reactions } = await h.reactions.listReactions({ target: target(51, 511) });
    const { reactions: onComment } = await h.reactions.listReactions({ target: target(51, 511, 5111) });
    return [...reactions, ...onComment].filter((r) => r.userId === userId).map((r) => r.userName);
  };

  const first = await h.publishUserRenamed(501, 'first-name');
  await eventually(async () => expect(await names(501)).toEqual(['first-name', 'first-name']));
  await h.publishUserRenamed(501, 'second-name');
  await eventually(async () => expect(await names(501)).toEqual(['second-name', 'second-name']));

  await h.publishUserRenamed(501, 'first-name', first);
  await h.publishUserRenamed(502, 'other');
  await eventually(async () => expect(await names(502)).toEqual(['other']));
  expect(await names(501)).toEqual(['second-name', 'second-name']);
});

it('keeps the newest name when renames arrive out of order (the older one after the newer)', async () => {
  await react(target(52, 521), 503);
  await react(target(52, 521), 504);
  await h.publishUserRenamed(503, 'newest-name', undefined, 7);
  await h.publishUserRenamed(503, 'older-name', undefined, 6);
  // The in-process bus delivers in order: once the marker is applied, so is the older rename.
  await h.publishUserRenamed(504, 'marker', undefined, 1);
  await eventually(async () => {
    const { rows } = await h.sql.query<{ user_name: string }>('SELECT user_name FROM reactions WHERE user_id = 504');
    expect(rows.map((row) => row.user_name)).toEqual(['marker']);
  });
  const { reactions } = await h.reactions.listReactions({ target: target(52, 521) });
  expect(reactions.filter((r) => r.userId === 503).map((r) => r.userName)).toEqual(['newest-name']);
});

it('drops an issue or comment event it can never apply and goes on with the next', async () => {
  await react(target(61, 611), 1);
  await react(target(61, 612, 6121), 1);
  await h.bus.publish(ConsumedSubject.issueDeleted, '0190f0f0-0000-7000-8000-000000000061', new TextEncoder().encode('not json'));
  await h.bus.publish(ConsumedSubject.commentDeleted, '0190f0f0-0000-7000-8000-000000000062', new TextEncoder().encode('{"meta":{}}'));
  await h.publishIssueDeleted(61, 611);
  await h.publishCommentDeleted(61, 612, 6121);
  await eventually(async () => expect(await reactionsOn('repo_id', 61)).toEqual([]));
});
