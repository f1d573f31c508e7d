/**
 * TopicService over gRPC on a real database: listing, replacing, adding and deleting a repository's topics with
 * Gitea's rules and errors, and searching topics with counts over the repositories the viewer may read.
 */
import { Code } from '@cairn/rpc';
import { startReposHarness, type ReposHarness } from './support/repos-harness';

describe('TopicService', () => {
  let h: ReposHarness;
  let owner: number;
  let writer: number;
  let stranger: number;
  let admin: number;
  let repoId: number;
  let archivedId: number;

  beforeAll(async () => {
    h = await startReposHarness();
    owner = h.accounts.addUser('owner');
    writer = h.accounts.addUser('writer');
    stranger = h.accounts.addUser('stranger');
    admin = h.accounts.addUser('root', { isAdmin: true });
    repoId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'app' });
    archivedId = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'old', isArchived: true });
    await h.addCollaborator(repoId, writer, 'write');
  });

  afterAll(async () => {
    await h?.stop();
  });

  const topicsOf = async (id = repoId) => (await h.topics.listTopics({ viewer: undefined, repoId: id })).topics;
  const replace = (actorId: number, topics: string[], id = repoId) => h.topics.replaceTopics({ actor: h.accounts.actor(actorId), repoId: id, topics });

  describe('on a repository', () => {
    it('replaces the topics, normalized, sorted and without repeats', async () => {
      await replace(owner, ['Web', ' go ', 'web', '']);
      expect(await topicsOf()).toEqual(['go', 'web']);
      await replace(owner, ['rust', 'go']);
      expect(await topicsOf()).toEqual(['go', 'rust']);
    });

    it('lists a page of topics with the total', async () => {
      const answer = await h.topics.listTopics({ viewer: undefined, repoId, page: { page: 2, limit: 1 } });
      expect(answer).toEqual({ topics: ['rust'], total: 2 });
    });

    it("refuses invalid names and too many topics with Gitea's messages, changing nothing", async () => {
      await expect(replace(owner, ['ok', 'Not OK', '-x'])).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'topics_invalid',
        message: 'Topic names are invalid: ["not ok","-x"]',
      });
      await expect(replace(owner, Array.from({ length: 26 }, (_, i) => `t${i}`))).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'topics_too_many',
        message: 'Exceeding maximum number of topics per repo',
      });
      expect(await topicsOf()).toEqual(['go', 'rust']);
    });

    it('adds one topic, once', async () => {
      await h.topics.addTopic({ actor: h.accounts.actor(owner), repoId, topic: ' CI ' });
      await h.topics.addTopic({ actor: h.accounts.actor(owner), repoId, topic: 'ci' });
      expect(await topicsOf()).toEqual(['ci', 'go', 'rust']);
      await expect(h.topics.addTopic({ actor: h.accounts.actor(owner), repoId, topic: 'a b' })).rejects.toMatchObject({
        code: Code.INVALID_ARGUMENT,
        reason: 'topic_invalid',
        message: 'Topic name is invalid',
      });
    });

    it('refuses a 26th topic', async () => {
      const full = await h.insertRepo({ ownerId: owner, ownerName: 'owner', name: 'full' });
      await replace(owner, Array.from({ length: 25 }, (_, i) => `t${i}`), full);
      await expect(h.topics.addTopic({ actor: h.accounts.actor(owner), repoId: full, topic: 'one-more' })).rejects.toMatchObject({
        reason: 'topics_too_many',
        message: 'Exceeding maximum allowed topics per repo.',
      });
      expect(await topicsOf(full)).toHaveLength(25);
    });

    it('deletes a topic, and answers NOT_FOUND for one the repository does not have', async () => {
      await h.topics.deleteTopic({ actor: h.accounts.actor(owner), repoId, topic: 'CI' });
      expect(await topicsOf()).toEqual(['go', 'rust']);
      await expect(h.topics.deleteTopic({ actor: h.accounts.actor(owner), repoId, topic: 'ci' })).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        reason: 'topic_not_found',
      });
    });

    it('is changed by admins only, archived repositories included', async () => {
      await expect(replace(writer, ['x'])).rejects.toMatchObject({
        code: Code.PERMISSION_DENIED,
        message: 'user should be an owner or a collaborator with admin write of a repository',
      });
      await expect(h.topics.addTopic({ actor: undefined, repoId, topic: 'x' })).rejects.toMatchObject({ code: Code.PERMISSION_DENIED });
      await replace(owner, ['legacy'], archivedId);
      expect(await topicsOf(archivedId)).toEqual(['legacy']);
    });
  });

  describe('searching', () => {
    let other: number;
    beforeAll(async () => {
      other = h.accounts.addUser('other');
      const secret = await h.insertRepo({ ownerId: other, ownerName: 'other', name: 'secret', isPrivate: true });
      await replace(other, ['go', 'hidden'], secret);
      const tool = await h.insertRepo({ ownerId: other, ownerName: 'other', name: 'tool' });
      await replace(other, ['go', 'web'], tool);
    });

    const search = async (viewerId: number, keyword: string, page?: { page: number; limit: number }) => {
      const answer = await h.topics.searchTopics({ viewer: viewerId === 0 ? undefined : h.accounts.actor(viewerId), keyword, page });
      return { total: answer.total, topics: answer.topics.map((topic) => [topic.name, topic.repoCount]) };
    };

    it('counts the repositories the viewer may read, most used first', async () => {
      // Public: app (go, rust), old (legacy), full (t0…t24), tool (go, web); private: secret (go, hidden).
      const anonymous = await search(0, '');
      expect(anonymous.topics.slice(0, 4)).toEqual([
        ['go', 2],
        ['legacy', 1],
        ['rust', 1],
        ['t0', 1],
      ]);
      expect(anonymous.topics).not.toContainEqual(['hidden', 1]);
      expect(anonymous.total).toBe(29);
      expect((await search(stranger, 'hid')).topics).toEqual([]);
    });

    it('includes private repositories for those who may read them', async () => {
      expect((await search(admin, 'go')).topics).toEqual([['go', 3]]);
      expect((await search(other, '')).topics.slice(0, 2)).toEqual([
        ['go', 3],
        ['hidden', 1],
      ]);
    });

    it('matches the keyword inside names, case-insensitively and literally', async () => {
      expect((await search(0, 'EB')).topics).toEqual([['web', 1]]);
      expect((await search(0, '%')).topics).toEqual([]);
      expect((await search(0, 't1')).topics.map(([name]) => name)).toEqual(['t1', 't10', 't11', 't12', 't13', 't14', 't15', 't16', 't17', 't18', 't19']);
    });

    it('pages, with the total', async () => {
      const page = await search(0, 't', { page: 2, limit: 10 });
      expect(page.total).toBe(26);
      expect(page.topics).toHaveLength(10);
    });

    it('gives each topic a stable id and dates', async () => {
      const [first] = (await h.topics.searchTopics({ viewer: undefined, keyword: 'rust' })).topics;
      expect(first).toMatchObject({ name: 'rust', repoCount: 1 });
      expect(first.id).toBeGreaterThan(0);
      expect(first.created).toBeInstanceOf(Date);
      expect(first.updated).toBeInstanceOf(Date);
    });
  });
});
