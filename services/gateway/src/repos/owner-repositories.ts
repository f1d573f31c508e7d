/**
 * The seam where the repositories service plugs into the user and organization routes: the repositories an owner
 * has that a viewer may see, one page at a time, with the total. Cairn has no repositories yet, so every owner
 * has none; when the repos service arrives this function asks it (by owner id, as the viewer) and nothing
 * else in the routes changes.
 */
import type { ListOptions } from '@cairn/http';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { GatewayServices, NamedAccount } from '../api/types';

export interface OwnerRepositoriesPage {
  /** Gitea `Repository` objects. */
  repositories: readonly unknown[];
  /** Every repository of the owner the viewer may see. */
  total: number;
}

export interface OwnerRepositoriesQuery {
  services: GatewayServices;
  owner: NamedAccount;
  viewer: Actor | undefined;
  page: ListOptions;
}

export async function listOwnerRepositories(_query: OwnerRepositoriesQuery): Promise<OwnerRepositoriesPage> {
  return { repositories: [], total: 0 };
}
