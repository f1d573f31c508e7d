/**
 * `cairn …` (`npm run cairn -- …`): parses the command line, runs the command, and turns every outcome
 * into one line and an exit code — 0 done, 1 the operation failed, 2 usage or configuration error.
 */
import { isConfigError, loadConfig } from '@cairn/config';
import { createLogger, silentLogger, type Logger } from '@cairn/log';
import { isCairnError } from '@cairn/rpc';
import { withUserService } from './accounts-access';
import { UsageError, commandHelp, parseCommandLine, type CommandSpec } from './args';
import { dumpRepoCommand, runDumpRepo } from './commands/dump-repo';
import { eventsTailCommand, runEventsTail } from './commands/events-tail';
import { keysGenerateCommand, runKeysGenerate } from './commands/keys-generate';
import { restoreRepoCommand, runRestoreRepo } from './commands/restore-repo';
import { userCreateCommand, runUserCreate } from './commands/user-create';
import { CommandFailedError, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const COMMANDS: CommandSpec[] = [userCreateCommand, keysGenerateCommand, dumpRepoCommand, restoreRepoCommand, eventsTailCommand];

/** Named in the run contract but not implemented yet: said plainly rather than pretending. */
const NOT_AVAILABLE = new Set<string>([]);

/** `--verbose` anywhere: service logs (JSON) on stderr, for diagnosing a failure. */
const VERBOSE_FLAG = '--verbose';

function generalHelp(): string {
  return [
    'Usage: cairn <command> [flags]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.path.join(' ').padEnd(20)}  ${command.summary}`),
    ...[...NOT_AVAILABLE].map((name) => `  ${name.padEnd(20)}  (not available yet)`),
    '',
    `Run "cairn <command> --help" for its flags; add ${VERBOSE_FLAG} to see service logs.`,
    '',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const verbose = argv.includes(VERBOSE_FLAG);
  const args = argv.filter((arg) => arg !== VERBOSE_FLAG);
  try {
    if (args[0] !== undefined && NOT_AVAILABLE.has(args[0])) {
      io.stderr(`cairn: ${args[0]} is not available yet in this version of Cairn\n`);
      return EXIT_USAGE;
    }
    const parsed = parseCommandLine(args, COMMANDS);
    if (parsed.kind === 'help') {
      io.stdout(parsed.command ? commandHelp(parsed.command) : generalHelp());
      return args.length === 0 ? EXIT_USAGE : EXIT_OK;
    }
    const { config } = loadConfig({ env: io.env, cwd: io.cwd });
    const logger: Logger = verbose
      ? createLogger({ service: 'cli', level: 'debug', destination: process.stderr })
      : silentLogger();
    const notice = (line: string) => io.stderr(`cairn: ${line}\n`);
    // It prints as events come, until interrupted: no closing line.
    if (parsed.command === eventsTailCommand) {
      await runEventsTail(config, parsed.values, { event: (line) => io.stdout(`${line}\n`), notice });
      return EXIT_OK;
    }
    const line =
      parsed.command === keysGenerateCommand
        ? runKeysGenerate(config, parsed.values, io.cwd)
        : parsed.command === dumpRepoCommand
          ? await runDumpRepo(config, parsed.values, io.cwd)
          : parsed.command === restoreRepoCommand
            ? await runRestoreRepo(config, parsed.values, io.cwd, logger, (progress) => io.stdout(`${progress}\n`))
            : await withUserService({ config, logger, notice }, (client) =>
            runUserCreate(client, parsed.values, { restricted: config.service.defaultUserIsRestricted }),
          );
    io.stdout(`${line}\n`);
    return EXIT_OK;
  } catch (error) {
    return report(error, io);
  }
}

function report(error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    const hint = error.command ? `cairn ${error.command.path.join(' ')} --help` : 'cairn --help';
    io.stderr(`cairn: ${error.message} (see "${hint}")\n`);
    return EXIT_USAGE;
  }
  if (isConfigError(error)) {
    io.stderr(`cairn: config error: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (isCairnError(error) || error instanceof CommandFailedError) {
    io.stderr(`cairn: ${error.message}\n`);
    return EXIT_FAILED;
  }
  io.stderr(`cairn: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_FAILED;
}
