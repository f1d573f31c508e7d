/** Every scenario, in the order they run. A new scenario: a module in this folder, listed here. */
import { gitCloneScenario } from './git-clone';
import { issuesPage1Scenario, issuesPage500Scenario } from './issue-list';
import { migrateIssuesScenario } from './migrate-issues';
import { notificationsNewScenario, notificationsPage1Scenario } from './notifications';
import { releaseAssetScenario } from './release-asset';
import type { Scenario } from './types';
import { textCodeScenario, textGlobsScenario, textMentionsScenario, textReferencesScenario } from './text';
import { userScenario } from './user';
import { versionScenario } from './version';
import { webhookLatencyScenario } from './webhook-latency';

export const SCENARIOS: readonly Scenario[] = [
  versionScenario,
  userScenario,
  gitCloneScenario,
  issuesPage1Scenario,
  issuesPage500Scenario,
  textCodeScenario,
  textMentionsScenario,
  textReferencesScenario,
  textGlobsScenario,
  releaseAssetScenario,
  notificationsNewScenario,
  notificationsPage1Scenario,
  webhookLatencyScenario,
  migrateIssuesScenario,
];

export type { BenchContext, BenchRequest, LatencyScenario, LoadScenario, RunningBaseline, Scenario, SingleScenario, Targets, TimedScenario, TimedTargets } from './types';
