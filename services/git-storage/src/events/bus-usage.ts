import type { BusUsage } from '@cairn/bus';
import { GIT_STREAM, GIT_SUBJECTS } from './subjects';

/** git-storage on the bus (see @cairn/bus usage.ts): publishes pushes on its own stream and consumes nothing. */
export const BUS_USAGE: BusUsage = {
  service: 'git-storage',
  owns: [{ name: GIT_STREAM, subjects: GIT_SUBJECTS }],
  consumers: [],
  broadcasts: [],
};
