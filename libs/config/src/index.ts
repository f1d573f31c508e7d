export * from './types';
export { ConfigError, isConfigError } from './errors';
export { type LoadConfigOptions, type LoadedConfig, loadConfig } from './load';
export { ENV_PREFIX, type DecodedEnvKey, decodeEnvKey, encodeEnvKey, serviceEnvOverrides } from './env-overrides';
export { DEFAULT_GRPC_PORTS } from './endpoints';
export { BUILTIN_DEFAULT_REPO_UNITS, REPO_UNITS, type RepoUnit } from './repo-units';
export {
  BUS_PREFIX_EXPECTED,
  BUS_PREFIX_PATTERN,
  DEFAULT_BUS_PREFIX,
  DEFAULT_CLOSE_KEYWORDS,
  DEFAULT_EVENTS_MAX_AGE_MS,
  DEFAULT_EVENTS_MAX_BYTES,
  DEFAULT_MAX_PUSH_SIZE,
  DEFAULT_METRICS_PORT,
  DEFAULT_REOPEN_KEYWORDS,
  DEFAULT_STREAM_MAX_AGE_MS,
  DEFAULT_STREAM_MAX_BYTES,
  LOG_LEVELS,
  RUN_MODES,
  VISIBILITIES,
} from './settings';
export { formatGoDuration, parseDuration } from './values';
