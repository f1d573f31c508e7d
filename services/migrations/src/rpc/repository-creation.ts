/**
 * The repos CreateRepository request of an import or a restore (Gitea's MigrateRepository creates the repository
 * empty, with the options the migration names; everything else is the defaults of an empty repository).
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { CreateRepositoryRequest } from '@cairn/proto/cairn/repos/v1/repos_service';

export interface RepositoryCreation {
  actor: Actor | undefined;
  owner: string;
  name: string;
  description: string;
  private: boolean;
  originalUrl?: string;
  mirror?: boolean;
  mirrorInterval?: string;
  validateOnly?: boolean;
}

export function repositoryCreation(creation: RepositoryCreation): CreateRepositoryRequest {
  return {
    actor: creation.actor,
    owner: creation.owner,
    name: creation.name,
    description: creation.description,
    private: creation.private,
    autoInit: false,
    gitignores: '',
    license: '',
    readme: '',
    defaultBranch: '',
    template: false,
    objectFormatName: '',
    trustModel: '',
    issueLabels: '',
    validateOnly: creation.validateOnly ?? false,
    mirror: creation.mirror ?? false,
    mirrorInterval: creation.mirrorInterval ?? '',
    originalUrl: creation.originalUrl ?? '',
  };
}
