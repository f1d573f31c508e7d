import type { BusUsage } from '@cairn/bus';
import { ACCOUNTS_STREAM, ACCOUNTS_SUBJECTS } from './subjects';

/** accounts on the bus (see @cairn/bus usage.ts): publishes its own stream and consumes nothing. */
export const BUS_USAGE: BusUsage = {
  service: 'accounts',
  owns: [{ name: ACCOUNTS_STREAM, subjects: ACCOUNTS_SUBJECTS }],
  consumers: [],
  broadcasts: [],
};
