/** @cairn/cli: the `cairn` command line (`npm run cairn -- …`). */
export { runCli, type CliIo } from './cli';
export { UsageError, commandHelp, parseCommandLine, type CommandSpec, type FlagSpec, type FlagValues, type ParsedCommandLine } from './args';
export { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors';
