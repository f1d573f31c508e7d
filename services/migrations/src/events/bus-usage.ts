import type { BusUsage } from '@cairn/bus';

/**
 * migrations on the bus (see @cairn/bus usage.ts): nothing yet. An import's git data is published by git-storage
 * (FetchRemote with `push` set: cairn.git.pushed, origin "migration"), not by this service.
 */
export const BUS_USAGE: BusUsage = {
  service: 'migrations',
  consumers: [],
  broadcasts: [],
};
