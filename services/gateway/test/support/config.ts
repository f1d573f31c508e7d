/**
 * A real configuration for gateway tests: `loadConfig` with no config file (every default) plus the
 * `CAIRN__<SECTION>__<KEY>` overrides a test names, exactly as an operator would set them.
 */
import { type CairnConfig, loadConfig } from '@cairn/config';

export function testConfig(env: Record<string, string> = {}): CairnConfig {
  const { config } = loadConfig({ env: { CAIRN_WORK_DIR: '/nonexistent/cairn-gateway-test', ...env }, cwd: '/' });
  return config;
}
