import { UsageError, commandHelp, parseCommandLine, type CommandSpec } from './args';

const create: CommandSpec = {
  path: ['admin', 'user', 'create'],
  summary: 'Creates a user.',
  flags: [
    { name: 'username', type: 'string', required: true, description: 'user name' },
    { name: 'password', type: 'string', required: true, description: 'password' },
    { name: 'admin', type: 'boolean', description: 'administrator' },
  ],
};
const commands = [create, { path: ['admin'], summary: 'Admin.', flags: [] }];

const usageError = (argv: string[]): UsageError => {
  try {
    parseCommandLine(argv, commands);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error('expected a UsageError');
};

describe('parseCommandLine', () => {
  it('reads string flags in both spellings and switches', () => {
    expect(parseCommandLine(['admin', 'user', 'create', '--username', 'ann', '--password=s3cr=t', '--admin'], commands)).toEqual({
      kind: 'run',
      command: create,
      values: { username: 'ann', password: 's3cr=t', admin: true },
    });
  });

  it('takes the next argument as a value even when it starts with a dash', () => {
    const parsed = parseCommandLine(['admin', 'user', 'create', '--username', 'ann', '--password', '--x-y'], commands);
    expect(parsed.kind === 'run' && parsed.values.password).toBe('--x-y');
  });

  it('accepts =true and =false on switches only', () => {
    const parsed = parseCommandLine(['admin', 'user', 'create', '--username', 'a', '--password', 'b', '--admin=false'], commands);
    expect(parsed.kind === 'run' && parsed.values.admin).toBe(false);
    expect(usageError(['admin', 'user', 'create', '--username', 'a', '--password', 'b', '--admin=yes']).message).toContain('--admin takes no value');
  });

  it('names missing required flags', () => {
    const error = usageError(['admin', 'user', 'create', '--username', 'ann']);
    expect(error.message).toBe('missing required flag --password');
    expect(error.command).toBe(create);
    expect(usageError(['admin', 'user', 'create']).message).toBe('missing required flags --username, --password');
  });

  it('rejects unknown commands, unknown or repeated flags, stray arguments and flags without value', () => {
    expect(usageError(['admin', 'frobnicate']).message).toBe('unexpected argument "frobnicate"');
    expect(usageError(['nope']).message).toBe('unknown command "nope"');
    expect(usageError(['admin', 'user', 'create', '--colour', 'red']).message).toBe('unknown flag --colour');
    expect(usageError(['admin', 'user', 'create', '--username', 'a', '--username', 'b']).message).toBe('--username is given more than once');
    expect(usageError(['admin', 'user', 'create', '--username', 'a', 'extra']).message).toBe('unexpected argument "extra"');
    expect(usageError(['admin', 'user', 'create', '--password', 'x', '--username']).message).toBe('--username needs a value');
  });

  it('answers --help for the command named before it, or in general', () => {
    expect(parseCommandLine(['admin', 'user', 'create', '--help'], commands)).toEqual({ kind: 'help', command: create });
    expect(parseCommandLine(['--help'], commands)).toEqual({ kind: 'help', command: undefined });
    expect(parseCommandLine([], commands)).toEqual({ kind: 'help', command: undefined });
  });
});

describe('commandHelp', () => {
  it('shows the usage line with required and optional flags', () => {
    const help = commandHelp(create);
    expect(help).toContain('Usage: cairn admin user create --username <username> --password <password> [--admin]');
    expect(help).toContain('user name (required)');
  });
});
