/**
 * Command-line parsing without dependencies: `cairn <words…> --flag value --flag=value --switch`.
 * Commands are declared as data (CommandSpec) so parsing, validation and help come from one place.
 */

export interface FlagSpec {
  name: string;
  /** A one-letter alias (`-r`), as Gitea's flags have some. */
  short?: string;
  type: 'string' | 'boolean';
  required?: boolean;
  description: string;
}

export interface CommandSpec {
  /** The words that name the command, e.g. ['admin', 'user', 'create']. */
  path: string[];
  summary: string;
  flags: FlagSpec[];
}

export type FlagValues = Record<string, string | boolean>;

/** A wrong command line: the message says what is wrong; exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    /** The command whose help to point at, when one was recognised. */
    readonly command?: CommandSpec,
  ) {
    super(message);
  }
}

export type ParsedCommandLine =
  | { kind: 'help'; command: CommandSpec | undefined }
  | { kind: 'run'; command: CommandSpec; values: FlagValues };

const HELP_FLAGS = new Set(['--help', '-h']);

export function parseCommandLine(argv: string[], commands: CommandSpec[]): ParsedCommandLine {
  const words: string[] = [];
  while (words.length < argv.length && !argv[words.length].startsWith('-')) words.push(argv[words.length]);
  const wantsHelp = argv.some((arg) => HELP_FLAGS.has(arg));

  // The longest declared command that the leading words start with.
  const command = commands
    .filter((spec) => spec.path.every((word, index) => words[index] === word))
    .sort((a, b) => b.path.length - a.path.length)[0];
  if (command === undefined) {
    if (wantsHelp || words.length === 0) return { kind: 'help', command: undefined };
    throw new UsageError(`unknown command "${words.join(' ')}"`);
  }
  if (wantsHelp) return { kind: 'help', command };
  const extra = words[command.path.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`, command);

  const values: FlagValues = {};
  const rest = argv.slice(words.length);
  for (let index = 0; index < rest.length; index++) {
    const given = rest[index];
    // `-r value` is `--repo_dir value` when the command declares the alias.
    const alias = /^-([A-Za-z])(=.*)?$/.exec(given);
    const aliased = alias === null ? undefined : command.flags.find((candidate) => candidate.short === alias[1]);
    const arg = aliased === undefined ? given : `--${aliased.name}${alias?.[2] ?? ''}`;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`, command);
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals < 0 ? undefined : equals);
    const inline = equals < 0 ? undefined : arg.slice(equals + 1);
    const flag = command.flags.find((candidate) => candidate.name === name);
    if (flag === undefined) throw new UsageError(`unknown flag --${name}`, command);
    if (name in values) throw new UsageError(`--${name} is given more than once`, command);
    if (flag.type === 'boolean') {
      values[name] = parseBoolean(name, inline, command);
      continue;
    }
    // A string flag takes the next argument as it is, even if it starts with "-" (a password may).
    const value = inline ?? rest[++index];
    if (value === undefined) throw new UsageError(`--${name} needs a value`, command);
    values[name] = value;
  }
  const missing = command.flags.filter((flag) => flag.required && !(flag.name in values)).map((flag) => `--${flag.name}`);
  if (missing.length > 0) throw new UsageError(`missing required flag${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, command);
  return { kind: 'run', command, values };
}

function parseBoolean(name: string, inline: string | undefined, command: CommandSpec): boolean {
  if (inline === undefined || inline === 'true') return true;
  if (inline === 'false') return false;
  throw new UsageError(`--${name} takes no value (or =true / =false), got "${inline}"`, command);
}

/** `cairn admin user create --username <value> [--admin]` with one line per flag. */
export function commandHelp(command: CommandSpec): string {
  const usage = command.flags
    .map((flag) => {
      const text = flag.type === 'string' ? `--${flag.name} <${flag.name}>` : `--${flag.name}`;
      return flag.required ? text : `[${text}]`;
    })
    .join(' ');
  const width = Math.max(...command.flags.map((flag) => flag.name.length + (flag.type === 'string' ? flag.name.length + 3 : 0)));
  const lines = command.flags.map((flag) => {
    const text = flag.type === 'string' ? `--${flag.name} <${flag.name}>` : `--${flag.name}`;
    return `  ${text.padEnd(width + 3)}  ${flag.description}${flag.required ? ' (required)' : ''}`;
  });
  return [`Usage: cairn ${command.path.join(' ')} ${usage}`, '', command.summary, '', 'Flags:', ...lines, ''].join('\n');
}
