/** Every scenario, in the order they run. A new scenario: a module in this folder, listed here. */
import type { Scenario } from './types';
import { userScenario } from './user';
import { versionScenario } from './version';

export const SCENARIOS: readonly Scenario[] = [versionScenario, userScenario];

export type { BenchContext, BenchRequest, RunningBaseline, Scenario, Targets } from './types';
