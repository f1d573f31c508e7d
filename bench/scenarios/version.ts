/** `GET /api/v1/version`: the gateway alone (no service call, no credentials) against a bare node:http server. */
import { DEFAULT_TARGETS, type LoadScenario } from './types';

export const versionScenario: LoadScenario = {
  kind: 'load',
  name: 'version',
  description: 'no credentials, no service call; baseline: bare node:http',
  setup: async () => ({}),
  cairn: { method: 'GET', path: '/api/v1/version' },
  baseline: {
    start: (context) => context.startBaseline('version', { BENCH_VERSION: context.version }),
  },
  targets: DEFAULT_TARGETS,
};
