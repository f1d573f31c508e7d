/**
 * `loadConfig`: CAIRN_WORK_DIR, CAIRN_CONFIG, the INI file, then `CAIRN__<SECTION>__<KEY>` overrides
 * (RUN-CONTRACT.md "Configuration").
 */
import * as path from 'node:path';
import { applyEnvOverrides } from './env-overrides';
import { readIniFile } from './ini-source';
import { unknownSettingWarnings } from './known-keys';
import type { RawSections } from './raw-sections';
import { SettingsReader } from './settings-reader';
import { readSettings } from './settings';
import type { CairnConfig } from './types';

export interface LoadConfigOptions {
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Directory relative paths are resolved against; default process.cwd(). */
  cwd?: string;
}

export interface LoadedConfig {
  config: CairnConfig;
  /** Problems that do not stop start-up (unknown settings, adjusted values), for the caller to log. */
  warnings: string[];
}

/**
 * Reads the configuration. A missing config file means all defaults; an unreadable or unparsable file,
 * or an invalid value, throws ConfigError.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const workDir = path.resolve(cwd, nonEmpty(env.CAIRN_WORK_DIR) ?? 'data');
  const configFile = nonEmpty(env.CAIRN_CONFIG);
  const configPath = configFile ? path.resolve(cwd, configFile) : path.join(workDir, 'app.ini');

  const sections: RawSections = readIniFile(configPath) ?? new Map();
  const warnings: string[] = [];
  applyEnvOverrides(sections, env, warnings);
  warnings.push(...unknownSettingWarnings(sections, configPath));
  // gpg's own variable: where the instance's signing key lives when it is not under the work directory.
  const gnupgHome = nonEmpty(env.GNUPGHOME);
  const config = readSettings(new SettingsReader(sections), { workDir, configPath, gnupgHome: gnupgHome && path.resolve(cwd, gnupgHome) }, warnings);
  return { config, warnings };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
