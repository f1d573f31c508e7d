/** A setting (or the config file itself) that stops start-up; the message is meant for the operator. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /**
   * What is wrong: `section.KEY` for a setting (`server.HTTP_PORT`, `DEFAULT.RUN_MODE` for top-level keys),
   * `CAIRN_CONFIG` for a config file that cannot be read or parsed, or the environment variable's name.
   */
  readonly key: string;

  constructor(key: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.key = key;
  }
}

export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}

/** Hides the password of `scheme://user:password@host` values so they do not end up in logs. */
export function redactSecrets(value: string): string {
  return value.replace(/(\/\/[^/@:\s]*:)[^/@\s]*@/g, '$1***@');
}
