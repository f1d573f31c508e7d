/**
 * Imports (routers/api/v1/repo/migrate.go): `POST /repos/migrate` has the migrations service check, create and import
 * the repository, and answers it as `GET /repos/{owner}/{repo}` does (201). `GET /repos/{owner}/{repo}/migration` is
 * Cairn's: the import task's status while it runs, as Gitea's web answers it at `/user/task/{id}`
 * (routers/web/user/task.go TaskStatus).
 */
import { go, goStruct, HttpError } from '@cairn/http';
import { Code } from '@cairn/rpc';
import { toApiRepository } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { json, repoOf } from '../../api/types';

/** Gitea's `MigrateRepoOptions`, fields in struct order. */
export const MigrateRepoOptions = goStruct('MigrateRepoOptions', {
  clone_addr: go.string('CloneAddr', { required: true }),
  uid: go.int64('RepoOwnerID'),
  repo_owner: go.string('RepoOwner'),
  repo_name: go.string('RepoName', { required: true, alphaDashDot: true, maxSize: 100 }),
  auth_username: go.string('AuthUsername'),
  auth_password: go.string('AuthPassword'),
  auth_token: go.string('AuthToken'),
  mirror: go.bool('Mirror'),
  lfs: go.bool('LFS'),
  lfs_endpoint: go.string('LFSEndpoint'),
  private: go.bool('Private'),
  description: go.string('Description', { maxSize: 2048 }),
  wiki: go.bool('Wiki'),
  milestones: go.bool('Milestones'),
  labels: go.bool('Labels'),
  issues: go.bool('Issues'),
  pull_requests: go.bool('PullRequests'),
  releases: go.bool('Releases'),
  mirror_interval: go.string('MirrorInterval'),
  aws_access_key_id: go.string('AWSAccessKeyID'),
  aws_secret_access_key: go.string('AWSSecretAccessKey'),
  service: go.string('Service'),
});

/** Beyond the import's own git timeout, for creating the repository and settling it. */
const MIGRATE_MARGIN_MS = 60_000;

/** Gitea's TaskStatus numbers: the proto enum's value minus one. */
const GITEA_TASK_STATUS = (status: number): number => status - 1;

export function registerMigrateRoutes(api: ApiRegistry): void {
  api.route({
    method: 'post',
    path: '/repos/migrate',
    operationId: 'repoMigrate',
    scope: 'repository',
    auth: 'required',
    body: MigrateRepoOptions,
    errors: {
      // Gitea answers an unknown owner 422; the import's own failures ("Authentication failed: …", "Migration
      // failed: …") 422 too; a taken name 409.
      codes: { [Code.NOT_FOUND]: 422, [Code.ALREADY_EXISTS]: 409, [Code.FAILED_PRECONDITION]: 422 },
      reasons: { repo_not_found: () => HttpError.unprocessable('the repository being imported into is gone') },
    },
    handler: async (ctx) => {
      const { body } = ctx;
      const { repoId } = await ctx.services.clients.migrations.migrate(
        {
          actor: ctx.viewer,
          cloneAddr: body.clone_addr,
          repoName: body.repo_name,
          repoOwner: body.repo_owner,
          uid: body.uid,
          service: body.service,
          authUsername: body.auth_username,
          authPassword: body.auth_password,
          authToken: body.auth_token,
          mirror: body.mirror,
          mirrorInterval: body.mirror_interval,
          private: body.private,
          description: body.description,
          wiki: body.wiki,
          milestones: body.milestones,
          labels: body.labels,
          issues: body.issues,
          pullRequests: body.pull_requests,
          releases: body.releases,
          lfs: body.lfs,
          lfsEndpoint: body.lfs_endpoint,
        },
        { deadlineMs: ctx.services.config.git.timeout.migrate + MIGRATE_MARGIN_MS },
      );
      const { repository } = await ctx.services.clients.repos.getRepository({ viewer: ctx.viewer, id: repoId, owner: '', name: '' });
      if (repository === undefined) throw new Error('GetRepository answered without a repository');
      return json(201, await toApiRepository(ctx.services, ctx.viewer, repository));
    },
  });

  api.route({
    method: 'get',
    path: '/repos/{owner}/{repo}/migration',
    operationId: 'repoGetMigration',
    scope: 'repository',
    auth: 'optional',
    repo: { mode: 'read' },
    operation: {
      produces: ['application/json'],
      tags: ['repository'],
      summary: "The repository's import task: its status while it runs and how it ended (Cairn; Gitea's web /user/task/{id})",
      operationId: 'repoGetMigration',
      parameters: [
        { type: 'string', description: 'owner of the repo', name: 'owner', in: 'path', required: true },
        { type: 'string', description: 'name of the repo', name: 'repo', in: 'path', required: true },
      ],
      responses: {
        '200': { description: 'MigrationTaskStatus', schema: { type: 'object' } },
        '404': { $ref: '#/responses/notFound' },
      },
    },
    handler: async (ctx) => {
      const repository = repoOf(ctx).repository;
      const { task } = await ctx.services.clients.migrations.getMigration({ viewer: ctx.viewer, repoId: repository.id });
      if (task === undefined) throw HttpError.notFound();
      // Gitea's TaskStatus JSON: the message is the task's (a failure's translated text in Gitea), never a credential.
      return json(200, {
        status: GITEA_TASK_STATUS(task.status),
        message: task.message,
        'repo-id': task.repoId,
        'repo-name': `${repository.ownerName}/${repository.name}`,
        start: task.started === undefined ? 0 : Math.floor(task.started.getTime() / 1000),
        end: task.ended === undefined ? 0 : Math.floor(task.ended.getTime() / 1000),
      });
    },
  });
}
