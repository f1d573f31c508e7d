/**
 * RepositoryService: repositories come and go as whole directories (storage/create.ts makes them atomically);
 * the auto-init commit is written with plumbing, no working tree.
 */
import { rm } from 'node:fs/promises';
import type { CreateRepositoryRequest, RepositoryServiceService } from '@cairn/proto/cairn/git/v1/git_service';
import { type AsyncServiceOf, CairnError } from '@cairn/rpc';
import {
  type InitialFile,
  combineGitignores,
  fillLicense,
  renderReadme,
  splitTemplateNames,
} from '../domain/initial-files';
import { identityEnvironment } from '../git/identity';
import { openRepository } from '../git/open-repository';
import { findRef } from '../git/ref-list';
import { assertValidRefName, branchRef } from '../git/refs';
import { repositoryInfo } from '../git/repository-info';
import { isEmptyRepository } from '../git/revisions';
import { cloneForFork, initBareRepository, setHeadBranch, writeFirstCommit } from '../git/repository-setup';
import { createRepositoryDir } from '../storage/create';
import { repositoryPath } from '../storage/layout';
import { gitignoreTemplate, licenseTemplate, listTemplates, readmeTemplate } from '../templates/catalog';
import type { GitStorageContext } from './context';

/** HEAD's branch when the request names none (Gitea's `[repository] DEFAULT_BRANCH`). */
const DEFAULT_BRANCH = 'main';
/** Gitea's auto-init commit message. */
const INITIAL_COMMIT_MESSAGE = 'Initial commit\n';

const branchNotFound = (name: string) => CairnError.notFound(`branch "${name}" does not exist`, { reason: 'branch_not_found' });

/** README.md, .gitignore and LICENSE of an auto-init; INVALID_ARGUMENT for an unknown template name. */
async function initialFiles(request: CreateRepositoryRequest, year: string): Promise<InitialFile[]> {
  const file = (path: string, text: string): InitialFile => ({ path, content: Buffer.from(text, 'utf8') });
  const readme = renderReadme(readmeTemplate(request.readme === '' ? 'Default' : request.readme), {
    name: request.repoName,
    description: request.description,
  });
  const files = [file('README.md', readme)];
  const gitignoreNames = splitTemplateNames(request.gitignores);
  if (gitignoreNames.length > 0) {
    const templates = await Promise.all(gitignoreNames.map(async (name) => ({ name, text: await gitignoreTemplate(name) })));
    files.push(file('.gitignore', combineGitignores(templates)));
  }
  if (request.license !== '') {
    const owner = request.ownerName === '' ? (request.author?.name ?? '') : request.ownerName;
    const values = { owner, email: request.author?.email ?? '', repo: request.repoName, year };
    files.push(file('LICENSE', fillLicense(licenseTemplate(request.license), values)));
  }
  return files;
}

export function createRepositoryService(context: GitStorageContext): AsyncServiceOf<typeof RepositoryServiceService> {
  return {
    async createRepository(request, ctx) {
      const branch = request.defaultBranch === '' ? DEFAULT_BRANCH : request.defaultBranch;
      assertValidRefName(branch);
      const gitDir = repositoryPath(context.root, request.repository);
      // Everything that can be refused is checked before anything is written.
      const now = new Date();
      const firstCommit = request.autoInit
        ? {
            branch,
            files: await initialFiles(request, String((request.author?.when ?? now).getUTCFullYear())),
            message: INITIAL_COMMIT_MESSAGE,
            identity: { ...identityEnvironment('AUTHOR', request.author, now), ...identityEnvironment('COMMITTER', request.author, now) },
          }
        : undefined;
      let commitSha = '';
      await createRepositoryDir(gitDir, ctx.signal, async (dir) => {
        await initBareRepository(dir, branch);
        if (firstCommit !== undefined) commitSha = await writeFirstCommit(dir, firstCommit);
      });
      return { commitSha };
    },

    async forkRepository(request, ctx) {
      const branch = request.branch === '' ? undefined : request.branch;
      const target = repositoryPath(context.root, request.target);
      const source = await openRepository(context.root, request.source);
      if (branch !== undefined && (await findRef(source, branchRef(branch))) === undefined) throw branchNotFound(branch);
      await createRepositoryDir(target, ctx.signal, (dir) => cloneForFork(source, dir, branch));
      return {};
    },

    async deleteRepository(request) {
      // Idempotent (a missing directory is success): repos repeats a removal until it has seen it succeed.
      await rm(repositoryPath(context.root, request.repository), { recursive: true, force: true });
      return {};
    },

    async getRepositoryInfo(request) {
      const info = await repositoryInfo(await openRepository(context.root, request.repository));
      return { empty: info.branchCount === 0, sizeKib: info.sizeKib, headBranch: info.headBranch, branchCount: info.branchCount };
    },

    async setDefaultBranch(request) {
      const ref = branchRef(request.branch);
      const gitDir = await openRepository(context.root, request.repository);
      // An empty repository takes any name (its first push creates the branch); otherwise the branch must exist.
      if (!(await isEmptyRepository(gitDir)) && (await findRef(gitDir, ref)) === undefined) throw branchNotFound(request.branch);
      await setHeadBranch(gitDir, request.branch);
      return {};
    },

    async listTemplates() {
      return listTemplates();
    },
  };
}
