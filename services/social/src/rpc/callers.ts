/**
 * Who may call each of social's RPCs (`@cairn/rpc` authorize.ts): the gateway for what the API serves, the CLI
 * for what it does, and the services that call them. `asAnyone` names the services that may call for a user no edge
 * asserted (from events, or as the system): every other caller may only act for the user the edge asserted.
 */
import type { Callers } from '@cairn/rpc';
import type { ImportServiceService } from '@cairn/proto/cairn/social/v1/import_service';
import type { ReactionServiceService, StarServiceService, WatchServiceService } from '@cairn/proto/cairn/social/v1/social_service';

export const REACTION_CALLERS: Callers<typeof ReactionServiceService> = {
  listReactions: ['gateway'],
  createReaction: ['gateway'],
  deleteReaction: ['gateway'],
};

export const STAR_CALLERS: Callers<typeof StarServiceService> = {
  star: ['gateway'],
  unstar: ['gateway'],
  isStarred: ['gateway'],
  listStargazers: ['gateway'],
  listStarredRepos: ['gateway'],
  batchListStarredRepos: ['gateway'],
  getRepoCounters: ['gateway', 'hooks'],
};

export const WATCH_CALLERS: Callers<typeof WatchServiceService> = {
  watch: ['gateway'],
  unwatch: ['gateway'],
  getWatch: ['gateway'],
  listWatchers: ['gateway', 'notifications'],
  listWatchedRepos: ['gateway'],
};

/** The migrations service alone takes a migrated repository's reactions in. */
export const IMPORT_CALLERS: Callers<typeof ImportServiceService> = {
  importReactions: ['migrations'],
};
