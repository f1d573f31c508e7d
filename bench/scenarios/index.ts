/** Every scenario, in the order they run. A new scenario: a module in this folder, listed here. */
import { gitCloneScenario } from './git-clone';
import type { Scenario } from './types';
import { userScenario } from './user';
import { versionScenario } from './version';

export const SCENARIOS: readonly Scenario[] = [versionScenario, userScenario, gitCloneScenario];

export type { BenchContext, BenchRequest, LoadScenario, RunningBaseline, Scenario, Targets, TimedScenario, TimedTargets } from './types';
