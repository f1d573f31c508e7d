/**
 * Keeps every gateway instance's GitRepoCache honest: any event that may change what a repository is or who may
 * read it — a repository created, changed, renamed, transferred or deleted, a collaborator added or removed, an
 * organization, team or membership changed, a user changed — forgets every entry. Forgetting everything is
 * cheap (entries live 2 s) and needs no reading of the events, so a new event kind under these subjects is
 * covered too (`cairn.repo.team_added` / `team_removed`, a team linked to or unlinked from a repository, came that
 * way). Every instance must see every event: a broadcast subscription (`bus.subscribe`), as the token cache's
 * (auth/invalidation.ts).
 */
import type { Subscription } from '@cairn/bus';
import type { GatewayBus } from '../auth/invalidation';
import type { GitRepoCache } from './repo-cache';

export const GIT_REPO_CACHE_SUBJECTS: readonly string[] = [
  'cairn.repo.>',
  'cairn.collaborator.>',
  'cairn.org.>',
  'cairn.org_member.>',
  'cairn.team.>',
  'cairn.team_member.>',
  'cairn.user.>',
];

/** Subscribes the cache to the events above; resolves once every subscription is in place. */
export async function subscribeGitRepoCacheInvalidation({ bus, cache }: { bus: GatewayBus; cache: GitRepoCache }): Promise<Subscription> {
  const subscriptions = await Promise.all(GIT_REPO_CACHE_SUBJECTS.map((subject) => bus.subscribe(subject, () => cache.clear())));
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    },
  };
}
