import type { BusUsage } from '@cairn/bus';
import { TOKEN_CACHE_SUBJECTS } from './auth/invalidation';
import { GIT_REPO_CACHE_SUBJECTS } from './git/repo-cache-invalidation';

/** The gateway on the bus (see @cairn/bus usage.ts): no streams, only broadcasts that keep its caches honest. */
export const BUS_USAGE: BusUsage = {
  service: 'gateway',
  consumers: [],
  broadcasts: [...new Set([...TOKEN_CACHE_SUBJECTS, ...GIT_REPO_CACHE_SUBJECTS])],
};
