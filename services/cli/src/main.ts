/** `node services/cli/dist/main.js …` — what `npm run cairn -- …` runs. */
import { runCli } from './cli';

runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  // Exit now rather than when the last handle closes: everything the command opened is already stopped.
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`cairn: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
