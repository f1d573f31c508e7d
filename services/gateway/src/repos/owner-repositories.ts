/**
 * The repositories an owner has that a viewer may see, one page at a time, with the total: repos'
 * ListOwnerRepositories as the viewer, converted to Gitea's JSON. The user and organization routes share it.
 */
import type { ListOptions } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { type ApiRepository, toApiRepositories } from '@cairn/gitea-json';
import type { GatewayServices, NamedAccount } from '../api/types';

export interface OwnerRepositoriesPage {
  repositories: ApiRepository[];
  /** Every repository of the owner the viewer may see. */
  total: number;
}

export interface OwnerRepositoriesQuery {
  services: GatewayServices;
  owner: NamedAccount;
  viewer: Actor | undefined;
  page: ListOptions;
  /** The caller's token is public-only: public repositories of public owners only. */
  publicOnly: boolean;
}

export async function listOwnerRepositories({ services, owner, viewer, page, publicOnly }: OwnerRepositoriesQuery): Promise<OwnerRepositoriesPage> {
  const answer = await services.clients.repos.listOwnerRepositories({ viewer, ownerId: owner.id, page: { page: page.page, limit: page.limit }, publicOnly });
  return { repositories: await toApiRepositories(services, viewer, answer.repositories), total: answer.total };
}
