/**
 * Topics (routers/api/v1/repo/topic.go): a repository's topics (`{topics: […]}`, X-Total-Count), replacing them
 * or adding and deleting one (repository admins, 204), and the site-wide topic search. repos validates names
 * (Gitea's rule) and keeps the counts; refused names are answered with Gitea's own 422 bodies, which carry
 * `invalidTopics` and no `url`.
 */
import { HttpError, go, goFormString, goStruct, goTime } from '@cairn/http';
import { type CairnError, isCairnError } from '@cairn/rpc';
import type { ApiRegistry } from '../../api/registry';
import { type ApiContext, type ApiReply, json, noContent, repoOf } from '../../api/types';
import { isPublicOnly } from '../../auth/caller';
import { pageOf } from '../orgs/params';

/** Gitea's `RepoTopicOptions`. */
export const RepoTopicOptions = goStruct('RepoTopicOptions', {
  topics: go.stringSlice('Topics'),
});

/** The invalid names repos lists after `: ` in a topics_invalid error, as a JSON array. */
function invalidTopicsOf(error: CairnError): string[] {
  const listed: unknown = JSON.parse(error.message.slice(error.message.indexOf(': ') + 2));
  if (!Array.isArray(listed) || !listed.every((name) => typeof name === 'string')) throw new Error(`unexpected topics_invalid message: ${error.message}`);
  return listed;
}

/** `{topic}` as Gitea names it in its answers: trimmed and lower-cased. */
function topicOf<B>(ctx: ApiContext<B>): string {
  return (ctx.params.topic ?? '').toLowerCase().trim();
}

/**
 * Runs a topic change; a refusal repos explains by reason becomes Gitea's own body (keys in Go's map order), any
 * other error goes on to the route's table.
 */
async function changeTopics<B>(ctx: ApiContext<B>, change: () => Promise<unknown>): Promise<ApiReply> {
  try {
    await change();
    return noContent();
  } catch (error) {
    if (!isCairnError(error)) throw error;
    switch (error.reason) {
      case 'topics_invalid':
        return json(422, { invalidTopics: invalidTopicsOf(error), message: 'Topic names are invalid' });
      case 'topic_invalid':
        return json(422, { invalidTopics: topicOf(ctx), message: 'Topic name is invalid' });
      case 'topics_too_many':
        // Replacing names no invalid topics (null); adding one says only how many is too many.
        return json(422, ctx.params.topic === undefined ? { invalidTopics: null, message: error.message } : { message: error.message });
      case 'topic_not_found':
        throw HttpError.notFound();
      default:
        throw error;
    }
  }
}

export function registerTopicRoutes(api: ApiRegistry): void {
  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/topics',
    operationId: 'repoListTopics',
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    handler: async (ctx) => {
      const { topics, total } = await ctx.services.clients.topics.listTopics({ viewer: ctx.viewer, repoId: repoOf(ctx).repository.id, page: pageOf(ctx) });
      ctx.setTotalCount(total);
      return json(200, { topics });
    },
  });

  api.route({
    method: 'put',
    path: '/repos/{owner}/{repo}/topics',
    operationId: 'repoUpdateTopics',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    body: RepoTopicOptions,
    handler: (ctx) =>
      changeTopics(ctx, () => ctx.services.clients.topics.replaceTopics({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, topics: ctx.body.topics })),
  });

  api.route({
    method: 'put',
    path: '/repos/{owner}/{repo}/topics/{topic}',
    operationId: 'repoAddTopic',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    handler: (ctx) =>
      changeTopics(ctx, () => ctx.services.clients.topics.addTopic({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, topic: ctx.params.topic ?? '' })),
  });

  api.route({
    method: 'delete',
    path: '/repos/{owner}/{repo}/topics/{topic}',
    operationId: 'repoDeleteTopic',
    scope: 'repository',
    auth: 'required',
    repo: { mode: 'admin' },
    handler: (ctx) =>
      changeTopics(ctx, () => ctx.services.clients.topics.deleteTopic({ actor: ctx.viewer, repoId: repoOf(ctx).repository.id, topic: ctx.params.topic ?? '' })),
  });

  api.route({
    method: 'get',
    path: '/topics/search',
    operationId: 'topicSearch',
    scope: 'repository',
    auth: 'optional',
    handler: async (ctx) => {
      const page = pageOf(ctx);
      const { topics, total } = await ctx.services.clients.topics.searchTopics({
        viewer: ctx.viewer,
        keyword: goFormString(ctx.query, 'q'),
        page,
        publicOnly: isPublicOnly(ctx.caller),
      });
      ctx.setLinkHeader(total, page.limit);
      ctx.setTotalCount(total);
      return json(200, {
        topics: topics.map((topic) => ({
          id: topic.id,
          topic_name: topic.name,
          repo_count: topic.repoCount,
          created: goTime(topic.created),
          updated: goTime(topic.updated),
        })),
      });
    },
  });
}
