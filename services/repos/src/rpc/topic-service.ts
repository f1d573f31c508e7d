/**
 * TopicService: repository topics (Gitea's routers/api/v1/repo/topic.go). Anyone who may read a repository lists
 * its topics; its admins change them (archived repositories included, as in Gitea).
 */
import { sql } from '@cairn/db';
import type { TopicServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import { viewerFromActor } from '../domain/access';
import { pageWindow } from '../domain/paging';
import { assertRoomForTopic, singleTopic, topicsForReplacement } from '../domain/topics';
import { publicCondition, readableRepositories } from '../store/access-scope';
import { lockRepoTopics, saveRepoTopics, searchTopics } from '../store/topics';
import type { ReposContext } from './context';
import { guard } from './guard';
import { loadRepoForViewer, requireAccess } from './repo-access';

export function createTopicService(context: ReposContext): AsyncServiceOf<typeof TopicServiceService> {
  const { db } = context;

  /** The repository, when the actor may change its topics. */
  async function adminRepo(actor: Parameters<typeof loadRepoForViewer>[1], repoId: number): Promise<number> {
    const { repo, permission } = await loadRepoForViewer(context, actor, repoId);
    requireAccess(permission, { mode: 'admin' }, repo);
    return repo.id;
  }

  /** Runs `change` on the repository's topics (locked) and stores what it answers. */
  async function changeTopics(repoId: number, change: (current: string[]) => string[]): Promise<void> {
    await guard(() =>
      db.pool.transaction(async (tx) => {
        const current = await lockRepoTopics(tx, repoId);
        await saveRepoTopics(tx, repoId, current, change(current));
      }),
    );
  }

  return {
    async listTopics(request) {
      const { repo } = await loadRepoForViewer(context, request.viewer, request.repoId);
      const window = pageWindow(request.page);
      const topics = window === undefined ? repo.topics : repo.topics.slice(window.offset, window.offset + window.limit);
      return { topics, total: repo.topics.length };
    },

    async replaceTopics(request) {
      const repoId = await adminRepo(request.actor, request.repoId);
      const topics = topicsForReplacement(request.topics);
      await changeTopics(repoId, () => topics);
      return {};
    },

    async addTopic(request) {
      const repoId = await adminRepo(request.actor, request.repoId);
      const topic = singleTopic(request.topic);
      await changeTopics(repoId, (current) => {
        assertRoomForTopic(current.length);
        return current.includes(topic) ? current : [...current, topic];
      });
      return {};
    },

    async deleteTopic(request) {
      const repoId = await adminRepo(request.actor, request.repoId);
      const topic = singleTopic(request.topic);
      await changeTopics(repoId, (current) => {
        if (!current.includes(topic)) throw CairnError.notFound(`topic is not exist [name: ${topic}]`, { reason: 'topic_not_found' });
        return current.filter((name) => name !== topic);
      });
      return {};
    },

    async searchTopics(request) {
      const readable = await readableRepositories(context, viewerFromActor(request.viewer));
      const shown = request.publicOnly === true ? sql.fragment`(${readable} AND ${publicCondition('repositories')})` : readable;
      const { topics, total } = await guard(() => searchTopics(db.pool, { keyword: request.keyword, readable: shown, window: pageWindow(request.page) }));
      return {
        topics: topics.map((topic) => ({ id: topic.id, name: topic.name, repoCount: topic.repo_count, created: topic.created, updated: topic.updated })),
        total,
      };
    },
  };
}
