/**
 * Reactions end to end: the built supervisor on PostgreSQL, driven over HTTP through the validating client (every
 * body checked against Gitea's description), with a custom `[ui] REACTIONS`. `/settings/ui` names the allowed
 * kinds and only those are accepted (403 `'x' is not an allowed reaction` for any other, a default one included);
 * a reaction is added once (201, then 200 with the same reaction), taken back with 204 whether or not it was there;
 * lists need no token, are `null` when empty, oldest first, paged with X-Total-Count for issues; a comment of
 * another repository is 404; a private repository's reactions are invisible to outsiders; a locked issue takes
 * reaction changes from writers only (repository writers and site administrators); bad bodies are 422 and change
 * nothing; a deleted user's, comment's or issue's reactions go with them.
 */
import { Client } from 'pg';
import type { ApiClient, ApiResponse } from './support/client';
import { startFixture, type Fixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(180_000);

const REACTIONS = ['+1', 'heart', 'tada', '🚀'];

interface ApiUser {
  id: number;
  login: string;
}
interface ApiReaction {
  user: ApiUser;
  content: string;
  created_at: string;
}
interface ApiIssue {
  id: number;
  number: number;
}
interface ApiComment {
  id: number;
}

describe('reactions through the gateway', () => {
  let fx: Fixture;
  let api: ApiClient;
  let pubIssue: number;
  let pubComment: number;
  let otherComment: number;
  let secretIssue: number;

  const issuePath = (repo: string, index: number) => `/api/v1/repos/alice/${repo}/issues/${index}/reactions`;
  const commentPath = (repo: string, id: number) => `/api/v1/repos/alice/${repo}/issues/comments/${id}/reactions`;
  const list = (path: string, headers?: Record<string, string>) => api.request<ApiReaction[] | null>('GET', path, { headers });
  /** Basic auth of a user, root (the site administrator) included. */
  const auth = (user: string) => (user === 'root' ? fx.root : fx.as(user));
  const react = (path: string, user: string, content: unknown) => api.request<ApiReaction>('POST', path, { headers: auth(user), body: { content } });
  const unreact = (path: string, user: string, content: unknown) => api.request('DELETE', path, { headers: auth(user), body: { content } });
  const summary = (res: ApiResponse<ApiReaction[] | null>) => (res.body ?? []).map((r) => `${r.user.login}:${r.content}`);

  async function createIssue(repo: string, title: string): Promise<number> {
    const res = await api.request<ApiIssue>('POST', `/api/v1/repos/alice/${repo}/issues`, { headers: fx.as('alice'), body: { title } });
    expect([title, res.status]).toEqual([title, 201]);
    return res.body.number;
  }

  async function createComment(repo: string, index: number, body: string): Promise<number> {
    const res = await api.request<ApiComment>('POST', `/api/v1/repos/alice/${repo}/issues/${index}/comments`, { headers: fx.as('alice'), body: { body } });
    expect([body, res.status]).toEqual([body, 201]);
    return res.body.id;
  }

  beforeAll(async () => {
    fx = await startFixture('e2e_reactions', ['alice', 'bob', 'carol', 'dave', 'erin'], { CAIRN__ui__REACTIONS: REACTIONS.join(', ') });
    api = fx.api;
    for (const [name, isPrivate] of [
      ['pub', false],
      ['other', false],
      ['secret', true],
    ] as const) {
      const res = await api.request('POST', '/api/v1/user/repos', { headers: fx.as('alice'), body: { name, private: isPrivate, auto_init: true } });
      expect([name, res.status]).toEqual([name, 201]);
    }
    // carol writes alice/pub; bob reads alice/secret.
    const collaborate = (repo: string, user: string, permission: string) =>
      api.request('PUT', `/api/v1/repos/alice/${repo}/collaborators/${user}`, { headers: fx.as('alice'), body: { permission } });
    expect((await collaborate('pub', 'carol', 'write')).status).toBe(204);
    expect((await collaborate('secret', 'bob', 'read')).status).toBe(204);

    pubIssue = await createIssue('pub', 'first issue');
    pubComment = await createComment('pub', pubIssue, 'a comment');
    otherComment = await createComment('other', await createIssue('other', 'elsewhere'), 'a comment elsewhere');
    secretIssue = await createIssue('secret', 'hidden issue');
  });

  afterAll(async () => {
    await fx?.stop();
  });

  it('/settings/ui names the allowed reactions', async () => {
    const res = await api.request<{ allowed_reactions: string[] }>('GET', '/api/v1/settings/ui');
    expect(res.status).toBe(200);
    expect(res.body.allowed_reactions).toEqual(REACTIONS);
  });

  it('lists nothing as null, without a token', async () => {
    const onIssue = await list(issuePath('pub', pubIssue));
    expect([onIssue.status, onIssue.body, onIssue.headers.get('x-total-count')]).toEqual([200, null, '0']);
    const onComment = await list(commentPath('pub', pubComment));
    expect([onComment.status, onComment.body]).toEqual([200, null]);
  });

  it('adds an issue reaction once: 201, then 200 with the same reaction', async () => {
    const path = issuePath('pub', pubIssue);
    const first = await react(path, 'bob', 'tada');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ user: { login: 'bob' }, content: 'tada' });
    expect(first.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await react(path, 'bob', 'tada');
    expect(again.status).toBe(200);
    // The same stored reaction (the user's own fields, e.g. last_login, move with each sign-in).
    const stored = (body: typeof first.body) => ({ user: body.user.id, content: body.content, created_at: body.created_at });
    expect(stored(again.body)).toEqual(stored(first.body));
    expect(summary(await list(path))).toEqual(['bob:tada']);
  });

  it('refuses kinds [ui] REACTIONS does not name, with 403, the default ones included', async () => {
    const path = issuePath('pub', pubIssue);
    for (const content of ['wrong', 'rocket', 'eyes', 'TADA', ' tada', '']) {
      const res = await react(path, 'bob', content);
      expect([content, res.status, res.body]).toEqual([content, 403, expect.objectContaining({ message: `'${content}' is not an allowed reaction` })]);
    }
    expect((await react(path, 'bob', '🚀')).status).toBe(201);
    expect(summary(await list(path))).toEqual(['bob:tada', 'bob:🚀']);
  });

  it('refuses bad bodies with 422 or 400 and changes nothing', async () => {
    const path = issuePath('pub', pubIssue);
    const bad = async (body: unknown) => api.request('POST', path, { headers: fx.as('carol'), body });
    expect((await bad({ content: 5 })).status).toBe(422);
    expect((await bad({ content: ['+1'] })).status).toBe(422);
    expect((await bad('[1, 2]')).status).toBe(422);
    expect((await bad('{"content": ')).status).toBe(400);
    expect((await api.request('DELETE', path, { headers: fx.as('bob'), body: { content: { kind: 'tada' } } })).status).toBe(422);
    expect(summary(await list(path))).toEqual(['bob:tada', 'bob:🚀']);
  });

  it('needs a token to react; an unknown issue is 404', async () => {
    const path = issuePath('pub', pubIssue);
    expect((await api.request('POST', path, { body: { content: '+1' } })).status).toBe(401);
    expect((await api.request('DELETE', path, { body: { content: 'tada' } })).status).toBe(401);
    for (const index of ['999', 'abc', '-1']) {
      const unknown = `/api/v1/repos/alice/pub/issues/${index}/reactions`;
      expect([index, (await list(unknown)).status]).toEqual([index, 404]);
      expect([index, (await react(unknown, 'bob', '+1')).status]).toEqual([index, 404]);
      expect([index, (await unreact(unknown, 'bob', '+1')).status]).toEqual([index, 404]);
    }
  });

  it('lists oldest first and pages issue reactions with X-Total-Count', async () => {
    const path = issuePath('pub', pubIssue);
    expect((await react(path, 'alice', 'heart')).status).toBe(201);
    expect((await react(path, 'carol', '+1')).status).toBe(201);
    const all = await list(path);
    expect(summary(all)).toEqual(['bob:tada', 'bob:🚀', 'alice:heart', 'carol:+1']);
    expect(all.headers.get('x-total-count')).toBe('4');
    const page = await list(`${path}?limit=2&page=2`);
    expect(summary(page)).toEqual(['alice:heart', 'carol:+1']);
    expect(page.headers.get('x-total-count')).toBe('4');
    const past = await list(`${path}?limit=2&page=5`);
    expect([past.body, past.headers.get('x-total-count')]).toEqual([null, '4']);
  });

  it('takes a reaction back with 204, also when there is none', async () => {
    const path = issuePath('pub', pubIssue);
    expect((await unreact(path, 'bob', '🚀')).status).toBe(204);
    expect((await unreact(path, 'bob', '🚀')).status).toBe(204);
    expect((await unreact(path, 'bob', 'never-allowed')).status).toBe(204);
    expect((await unreact(path, 'dave', 'heart')).status).toBe(204);
    expect(summary(await list(path))).toEqual(['bob:tada', 'alice:heart', 'carol:+1']);
  });

  it('reacts to comments of this repository only', async () => {
    const path = commentPath('pub', pubComment);
    expect((await react(path, 'bob', 'heart')).status).toBe(201);
    expect((await react(path, 'bob', 'heart')).status).toBe(200);
    expect((await react(path, 'carol', 'wrong')).status).toBe(403);
    expect((await react(path, 'carol', '+1')).status).toBe(201);
    const listed = await list(path);
    expect(summary(listed)).toEqual(['bob:heart', 'carol:+1']);
    // The issue's own list does not show its comments' reactions.
    expect(summary(await list(issuePath('pub', pubIssue)))).toEqual(['bob:tada', 'alice:heart', 'carol:+1']);
    expect((await unreact(path, 'carol', '+1')).status).toBe(204);
    expect(summary(await list(path))).toEqual(['bob:heart']);

    // A comment of alice/other through alice/pub, and one that does not exist.
    for (const foreign of [commentPath('pub', otherComment), commentPath('pub', 999_999), `/api/v1/repos/alice/pub/issues/comments/x/reactions`]) {
      expect([foreign, (await list(foreign)).status]).toEqual([foreign, 404]);
      expect([foreign, (await react(foreign, 'bob', '+1')).status]).toEqual([foreign, 404]);
      expect([foreign, (await unreact(foreign, 'bob', '+1')).status]).toEqual([foreign, 404]);
    }
    expect(await list(commentPath('other', otherComment))).toMatchObject({ status: 200, body: null });
  });

  it("keeps a private repository's reactions from outsiders", async () => {
    const path = issuePath('secret', secretIssue);
    expect((await react(path, 'alice', 'heart')).status).toBe(201);
    // bob reads alice/secret: he may list and react.
    expect((await react(path, 'bob', '+1')).status).toBe(201);
    expect(summary(await list(path, fx.as('bob')))).toEqual(['alice:heart', 'bob:+1']);
    // Anonymous callers and dave are not told it exists.
    expect((await list(path)).status).toBe(404);
    expect((await list(path, fx.as('dave'))).status).toBe(404);
    expect((await react(path, 'dave', '+1')).status).toBe(404);
    expect((await unreact(path, 'dave', '+1')).status).toBe(404);
    expect(summary(await list(path, fx.as('alice')))).toEqual(['alice:heart', 'bob:+1']);
  });

  it('takes reaction changes on a locked issue from writers only', async () => {
    const index = await createIssue('pub', 'to be locked');
    const comment = await createComment('pub', index, 'on a locked issue');
    const path = issuePath('pub', index);
    expect((await react(path, 'bob', 'heart')).status).toBe(201);
    const locked = await api.request('PUT', `/api/v1/repos/alice/pub/issues/${index}/lock`, { headers: fx.as('alice'), body: { lock_reason: 'resolved' } });
    expect(locked.status).toBe(204);

    for (const target of [path, commentPath('pub', comment)]) {
      const refused = await react(target, 'bob', '+1');
      expect([target, refused.status, refused.body]).toEqual([target, 403, expect.objectContaining({ message: 'no permission to change reaction' })]);
      // The lock is looked at before the kind.
      expect((await react(target, 'bob', 'wrong')).body).toMatchObject({ message: 'no permission to change reaction' });
      expect((await react(target, 'carol', '+1')).status).toBe(201);
      expect((await react(target, 'root', '+1')).status).toBe(201);
      expect((await react(target, 'alice', 'tada')).status).toBe(201);
    }
    const refused = await unreact(path, 'bob', 'heart');
    expect([refused.status, refused.body]).toEqual([403, expect.objectContaining({ message: 'no permission to change reaction' })]);
    expect(summary(await list(path))).toEqual(['bob:heart', 'carol:+1', 'root:+1', 'alice:tada']);
    expect((await unreact(path, 'carol', '+1')).status).toBe(204);
    expect(summary(await list(path))).toEqual(['bob:heart', 'root:+1', 'alice:tada']);
  });

  it("forgets a deleted user's, comment's and issue's reactions", async () => {
    const created = await api.request<ApiIssue>('POST', '/api/v1/repos/alice/pub/issues', { headers: fx.as('alice'), body: { title: 'short-lived' } });
    expect(created.status).toBe(201);
    const { id: issueId, number: index } = created.body;
    const comment = await createComment('pub', index, 'short-lived comment');
    const path = issuePath('pub', index);
    const erin = await react(path, 'erin', '+1');
    expect(erin.status).toBe(201);
    expect((await react(path, 'bob', '+1')).status).toBe(201);
    expect((await react(commentPath('pub', comment), 'bob', 'heart')).status).toBe(201);
    expect((await react(commentPath('pub', comment), 'carol', 'heart')).status).toBe(201);

    expect((await api.request('DELETE', '/api/v1/admin/users/erin', { headers: fx.root })).status).toBe(204);
    await waitFor('erin’s reactions to go', async () => ((await storedReactions('user_id = $1', [erin.body.user.id])) === 0 ? true : undefined), 30_000);
    expect(summary(await list(path))).toEqual(['bob:+1']);

    // Reactions are kept by issue and comment id: they do not outlive what they were on.
    expect((await api.request('DELETE', `/api/v1/repos/alice/pub/issues/comments/${comment}`, { headers: fx.as('alice') })).status).toBe(204);
    await waitFor('the comment’s reactions to go', async () => ((await storedReactions('comment_id = $1', [comment])) === 0 ? true : undefined), 30_000);
    expect(await storedReactions('issue_id = $1', [issueId])).toBe(1);
    expect((await api.request('DELETE', `/api/v1/repos/alice/pub/issues/${index}`, { headers: fx.as('alice') })).status).toBe(204);
    await waitFor('the issue’s reactions to go', async () => ((await storedReactions('issue_id = $1', [issueId])) === 0 ? true : undefined), 30_000);
    expect((await list(path)).status).toBe(404);
  });

  /** How many reactions social keeps that match `where` (read from its schema: nothing else shows them). */
  async function storedReactions(where: string, values: unknown[]): Promise<number> {
    const client = new Client({ connectionString: fx.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: string }>(`SELECT count(*) FROM social.reactions WHERE ${where}`, values);
      return Number(rows[0].count);
    } finally {
      await client.end();
    }
  }
});
