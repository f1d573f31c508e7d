/**
 * Creating a repository (routers/api/v1/repo/repo.go `CreateUserRepo`), shared by `POST /user/repos`, `POST
 * /orgs/{org}/repos` and the deprecated `POST /org/{org}/repos`. repos decides who may create for whom
 * (organization owners, `can_create_org_repo` teams, site admins) and creates the git repository.
 */
import { type CairnErrorMapping, go, goStruct } from '@cairn/http';
import { Code } from '@cairn/rpc';
import { toApiRepository } from '@cairn/gitea-json';
import { type ApiContext, type ApiReply, json } from '../api/types';
import type { BodyOf } from '../routes/orgs/options';

/** Gitea's `CreateRepoOption`, fields in struct order. */
export const CreateRepoOption = goStruct('CreateRepoOption', {
  name: go.string('Name', { required: true, alphaDashDot: true, maxSize: 100 }),
  description: go.string('Description', { maxSize: 2048 }),
  private: go.bool('Private'),
  issue_labels: go.string('IssueLabels'),
  auto_init: go.bool('AutoInit'),
  template: go.bool('Template'),
  gitignores: go.string('Gitignores'),
  license: go.string('License'),
  readme: go.string('Readme'),
  default_branch: go.string('DefaultBranch', { gitRefName: true, maxSize: 100 }),
  trust_model: go.string('TrustModel'),
  object_format_name: go.string('ObjectFormatName', { maxSize: 6 }),
});

export type CreateRepoBody = BodyOf<typeof CreateRepoOption>;

/** A taken name is 409 (`The repository with the same name already exists.`); bad or reserved names stay 422. */
export const CREATE_REPO_ERRORS: CairnErrorMapping = { codes: { [Code.ALREADY_EXISTS]: 409 } };

/** Creates the repository for `owner` (a user or organization name; empty: the caller) and answers 201 with it. */
export async function createRepository<B>(ctx: ApiContext<B>, owner: string, body: CreateRepoBody): Promise<ApiReply> {
  const { repository } = await ctx.services.clients.repos.createRepository({
    actor: ctx.viewer,
    owner,
    name: body.name,
    description: body.description,
    private: body.private,
    autoInit: body.auto_init,
    gitignores: body.gitignores,
    license: body.license,
    // Gitea initialises with its "Default" README when asked to auto-initialise without naming one.
    readme: body.auto_init && body.readme === '' ? 'Default' : body.readme,
    defaultBranch: body.default_branch,
    template: body.template,
    objectFormatName: body.object_format_name,
    trustModel: body.trust_model,
    issueLabels: body.issue_labels,
    validateOnly: false,
    mirror: false,
    mirrorInterval: '',
    originalUrl: '',
  });
  if (repository === undefined) throw new Error('CreateRepository answered without a repository');
  return json(201, await toApiRepository(ctx.services, ctx.viewer, repository));
}
