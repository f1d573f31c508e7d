/**
 * What a repository's code is (routers/api/v1/repo/language.go GetLanguages, repo/license.go GetLicenses): bytes
 * per language of the default branch (`{language: bytes}`, `{}` for an empty repository), computed by git-storage
 * and cached there by commit; and the SPDX ids of the default branch's licence files, which repos keeps current
 * on pushes (the same list as the repository's `licenses`).
 */
import { UNIT_CODE, gitRepositoryOf } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { json, repoOf } from '../../api/types';

export function registerRepoAnalysisRoutes(api: ApiRegistry): void {
  // Gitea: reqRepoReader(unit.TypeCode) on both.
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' } } as const;

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/languages',
    operationId: 'repoGetLanguages',
    handler: async (ctx) => {
      const { repository } = repoOf(ctx);
      if (repository.empty) return json(200, {});
      const { languages } = await ctx.services.clients.analysis.getLanguageStats({
        repository: gitRepositoryOf(repository),
        revision: repository.defaultBranch,
      });
      return json(200, languages);
    },
  });

  api.route({
    ...reader,
    method: 'get',
    path: '/repos/{owner}/{repo}/licenses',
    operationId: 'repoGetLicenses',
    handler: async (ctx) => json(200, repoOf(ctx).repository.licenses),
  });
}
