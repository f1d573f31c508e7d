/**
 * ReactionService against a real database: only `[ui] REACTIONS` kinds (exact match, the default list or a custom
 * one), one reaction per user, target and kind (a repeat answers the existing one and publishes nothing, also when
 * it races itself), deleting is idempotent and publishes only what it removed, locked issues take reaction changes
 * from writers only, lists are oldest first per target and page, and bad requests change nothing.
 */
import { ReactionAdded, ReactionRemoved } from '@cairn/proto/cairn/social/v1/events';
import type { ReactionTarget } from '@cairn/proto/cairn/social/v1/social_service';
import { Code } from '@cairn/rpc';
import { decoded, startService, type ServiceHarness } from './harness';

let h: ServiceHarness;

beforeAll(async () => {
  h = await startService();
});

afterAll(async () => {
  await h?.stop();
});

function target(issueId: number, commentId = 0, options: { repoId?: number; locked?: boolean } = {}): ReactionTarget {
  return { repoId: options.repoId ?? 1000, issueId, commentId, issueLocked: options.locked ?? false };
}

const react = (t: ReactionTarget, userId: number, content: string, canWrite = false) =>
  h.reactions.createReaction({ target: t, userId, userName: `user${userId}`, content, canWrite });
const unreact = (t: ReactionTarget, userId: number, content: string, canWrite = false) =>
  h.reactions.deleteReaction({ target: t, userId, content, canWrite });

async function rowCount(issueId: number): Promise<number> {
  const { rows } = await h.sql.query<{ count: string }>('SELECT count(*) FROM reactions WHERE issue_id = $1', [issueId]);
  return Number(rows[0].count);
}

describe('CreateReaction', () => {
  it('adds a reaction once and announces it once; a repeat answers the existing one', async () => {
    const before = await h.lastSeq();
    const first = await react(target(1), 11, '+1');
    expect(first).toEqual({ created: true, reaction: { userId: 11, userName: 'user11', content: '+1', created: expect.any(Date), originalAuthor: '', originalService: '' } });
    const again = await react(target(1), 11, '+1');
    expect(again).toEqual({ created: false, reaction: first.reaction });
    expect(await rowCount(1)).toBe(1);

    const events = await h.outbox(before);
    expect(events.map((event) => event.subject)).toEqual(['cairn.reaction.created']);
    expect(decoded(ReactionAdded, events[0])).toEqual({
      meta: { eventId: events[0].id, occurredAt: expect.any(Date), actorId: 11, repoId: 1000 },
      issueId: 1,
      commentId: 0,
      userId: 11,
      content: '+1',
    });
  });

  it('keeps kinds, users and targets apart', async () => {
    await react(target(2), 21, '+1');
    await react(target(2), 21, 'heart');
    await react(target(2), 22, '+1');
    await react(target(2, 201), 21, '+1');
    expect(await rowCount(2)).toBe(4);
  });

  it('stores the user id, the user name and the kind, nothing else of the user', async () => {
    await react(target(3, 301, { repoId: 1003 }), 31, 'rocket');
    const { rows } = await h.sql.query('SELECT * FROM reactions WHERE issue_id = 3');
    expect(rows).toEqual([
      {
        id: expect.any(String),
        repo_id: '1003',
        issue_id: '3',
        comment_id: '301',
        user_id: '31',
        user_name: 'user31',
        content: 'rocket',
        created: expect.any(Date),
        original_author: '',
        original_author_id: '0',
        original_service: '',
      },
    ]);
  });

  it.each(['wrong', '', ' +1', '+1 ', 'HEART', 'thumbsup', '+1,heart', "'; DROP TABLE reactions; --"])(
    'refuses %j: not an allowed reaction (exact match), nothing stored or announced',
    async (content) => {
      const before = await h.lastSeq();
      await expect(react(target(4), 41, content)).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: `'${content}' is not an allowed reaction`,
      });
      expect(await rowCount(4)).toBe(0);
      expect(await h.outbox(before)).toEqual([]);
    },
  );

  it('accepts every default kind', async () => {
    for (const content of ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes']) {
      expect(await react(target(5), 51, content)).toMatchObject({ created: true });
    }
    expect(await rowCount(5)).toBe(8);
  });

  it('adds one reaction when the same one is given many times at once', async () => {
    const before = await h.lastSeq();
    const answers = await Promise.all(Array.from({ length: 8 }, () => react(target(6), 61, 'eyes')));
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.reaction?.created?.getTime())).size).toBe(1);
    expect(await rowCount(6)).toBe(1);
    expect((await h.outbox(before)).map((event) => event.subject)).toEqual(['cairn.reaction.created']);
  });

  it('refuses malformed requests', async () => {
    const bad = (request: Partial<Parameters<typeof h.reactions.createReaction>[0]>) =>
      h.reactions.createReaction({ target: target(7), userId: 71, userName: 'user71', content: '+1', canWrite: false, ...request });
    await expect(bad({ target: undefined })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'target_invalid' });
    await expect(bad({ target: target(0) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'target_invalid' });
    await expect(bad({ target: target(7, -1) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'target_invalid' });
    await expect(bad({ target: target(7, 0, { repoId: 0 }) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'repo_id_invalid' });
    await expect(bad({ userId: 0 })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'user_id_invalid' });
    await expect(bad({ userName: '' })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT, reason: 'user_name_invalid' });
    expect(await rowCount(7)).toBe(0);
  });
});

describe('DeleteReaction', () => {
  it('removes a reaction and announces it once; removing it again, or one never made, changes nothing', async () => {
    await react(target(8), 81, 'laugh');
    await react(target(8), 82, 'laugh');
    const before = await h.lastSeq();
    await unreact(target(8), 81, 'laugh');
    await unreact(target(8), 81, 'laugh');
    await unreact(target(8), 81, 'heart');
    await unreact(target(8), 81, 'not-a-kind');
    await unreact(target(8), 81, 'nul\u0000byte');
    await unreact(target(8, 801), 82, 'laugh');

    const { reactions } = await h.reactions.listReactions({ target: target(8) });
    expect(reactions.map((r) => [r.userId, r.content])).toEqual([[82, 'laugh']]);
    const events = await h.outbox(before);
    expect(events.map((event) => event.subject)).toEqual(['cairn.reaction.deleted']);
    expect(decoded(ReactionRemoved, events[0])).toMatchObject({
      meta: { actorId: 81, repoId: 1000 },
      issueId: 8,
      commentId: 0,
      userId: 81,
      content: 'laugh',
    });
  });

  it('refuses malformed requests', async () => {
    await expect(h.reactions.deleteReaction({ target: target(0), userId: 1, content: '+1', canWrite: false })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
    });
    await expect(h.reactions.deleteReaction({ target: target(9), userId: -5, content: '+1', canWrite: false })).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      reason: 'user_id_invalid',
    });
  });
});

describe('locked issues', () => {
  const locked = (commentId = 0) => target(10, commentId, { locked: true });

  it('take new reactions from writers only, before the kind is even looked at', async () => {
    for (const commentId of [0, 1001]) {
      await expect(react(locked(commentId), 101, '+1')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: 'no permission to change reaction' });
      await expect(react(locked(commentId), 101, 'wrong')).rejects.toMatchObject({ message: 'no permission to change reaction' });
      await expect(react(locked(commentId), 102, 'wrong', true)).rejects.toMatchObject({ message: "'wrong' is not an allowed reaction" });
      expect(await react(locked(commentId), 102, '+1', true)).toMatchObject({ created: true });
    }
    expect(await rowCount(10)).toBe(2);
  });

  it('let writers only take reactions back', async () => {
    await react(target(11), 111, 'heart');
    const before = await h.lastSeq();
    await expect(unreact(target(11, 0, { locked: true }), 111, 'heart')).rejects.toMatchObject({
      code: Code.PERMISSION_DENIED,
      message: 'no permission to change reaction',
    });
    expect(await rowCount(11)).toBe(1);
    expect(await h.outbox(before)).toEqual([]);
    await unreact(target(11, 0, { locked: true }), 111, 'heart', true);
    expect(await rowCount(11)).toBe(0);
  });

  it('do not restrict listing', async () => {
    expect((await h.reactions.listReactions({ target: locked() })).total).toBe(1);
  });
});

describe('ListReactions', () => {
  it('answers a target’s reactions oldest first, by page, with the total', async () => {
    const made = [
      [121, '+1'],
      [122, 'heart'],
      [121, 'rocket'],
      [123, '+1'],
      [124, 'eyes'],
    ] as const;
    for (const [userId, content] of made) await react(target(12), userId, content);
    await react(target(12, 1201), 125, '+1');

    const all = await h.reactions.listReactions({ target: target(12) });
    expect(all.total).toBe(5);
    expect(all.reactions.map((r) => [r.userId, r.content])).toEqual(made.map(([userId, content]) => [userId, content]));
    expect(all.reactions[0]).toEqual({ userId: 121, userName: 'user121', content: '+1', created: expect.any(Date), originalAuthor: '', originalService: '' });

    const second = await h.reactions.listReactions({ target: target(12), page: { page: 2, limit: 2 } });
    expect(second.total).toBe(5);
    expect(second.reactions.map((r) => [r.userId, r.content])).toEqual([
      [121, 'rocket'],
      [123, '+1'],
    ]);
    const past = await h.reactions.listReactions({ target: target(12), page: { page: 9, limit: 2 } });
    expect(past).toEqual({ reactions: [], total: 5 });

    const comment = await h.reactions.listReactions({ target: target(12, 1201) });
    expect(comment.reactions.map((r) => r.userId)).toEqual([125]);
    expect(await h.reactions.listReactions({ target: target(13) })).toEqual({ reactions: [], total: 0 });
  });

  it('refuses a malformed target', async () => {
    await expect(h.reactions.listReactions({ target: target(12, -3) })).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
    await expect(h.reactions.listReactions({})).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
  });
});

describe('a custom [ui] REACTIONS', () => {
  let custom: ServiceHarness;

  beforeAll(async () => {
    custom = await startService({ CAIRN__ui__REACTIONS: '+1, tada, 🎉' });
  });

  afterAll(async () => {
    await custom?.stop();
  });

  it('allows exactly its kinds and lists only those', async () => {
    const t = target(14);
    const create = (content: string) => custom.reactions.createReaction({ target: t, userId: 141, userName: 'user141', content, canWrite: false });
    expect(await create('tada')).toMatchObject({ created: true });
    expect(await create('🎉')).toMatchObject({ created: true });
    expect(await create('+1')).toMatchObject({ created: true });
    await expect(create('heart')).rejects.toMatchObject({ code: Code.PERMISSION_DENIED, message: "'heart' is not an allowed reaction" });

    // A kind the list no longer names (made while it did) is not listed or counted, as Gitea filters its lists,
    // but can still be taken back.
    await custom.sql.query("INSERT INTO reactions (repo_id, issue_id, comment_id, user_id, user_name, content) VALUES (1000, 14, 0, 142, 'user142', 'heart')");
    const listed = await custom.reactions.listReactions({ target: t });
    expect(listed.total).toBe(3);
    expect(listed.reactions.map((r) => r.content)).toEqual(['tada', '🎉', '+1']);
    await custom.reactions.deleteReaction({ target: t, userId: 142, content: 'heart', canWrite: false });
    const { rows } = await custom.sql.query("SELECT 1 FROM reactions WHERE content = 'heart'");
    expect(rows).toEqual([]);
  });
});

describe('ImportReactions (migrations)', () => {
  const imported = (issueId: number, commentId: number, content: string, originalAuthor = '', originalAuthorId = 0) => ({
    issueId,
    commentId,
    userId: originalAuthor === '' ? 91 : 90,
    userName: originalAuthor === '' ? 'user91' : 'importer',
    content,
    originalAuthor,
    originalAuthorId,
    originalService: originalAuthor === '' ? '' : 'gitea',
  });

  it('adds local users\' and original authors\' reactions once, publishes nothing, and lists original authors', async () => {
    const before = await h.lastSeq();
    const batch = [
      imported(9, 0, '+1'),
      imported(9, 0, 'heart', 'carol', 42),
      imported(9, 0, 'heart', 'dave', 43),
      imported(9, 901, 'laugh', 'carol', 42),
    ];
    expect(await h.imports.importReactions({ repoId: 1009, reactions: batch })).toEqual({ created: 4 });
    // A resumed import sends the batch again: nothing more.
    expect(await h.imports.importReactions({ repoId: 1009, reactions: batch })).toEqual({ created: 0 });
    expect(await h.outbox(before)).toEqual([]);
    const { reactions } = await h.reactions.listReactions({ target: target(9, 0, { repoId: 1009 }) });
    expect(reactions.map((r) => [r.userId, r.content, r.originalAuthor, r.originalService])).toEqual([
      [91, '+1', '', ''],
      [90, 'heart', 'carol', 'gitea'],
      [90, 'heart', 'dave', 'gitea'],
    ]);
    // The importing user's own reaction of a kind is not an original author's.
    expect(await react(target(9, 0, { repoId: 1009 }), 90, 'heart')).toMatchObject({ created: true });
  });
});
