/**
 * `node services/supervisor/dist/main.js` (what `npm start` runs): starts everything, prints where Cairn
 * answers, and on SIGTERM / SIGINT / SIGHUP shuts down in order and exits 0. Exit 2 for a configuration
 * error, 1 when start-up fails.
 */
import { isConfigError } from '@cairn/config';
import { StartAbortedError, startSupervisor, type RunningSupervisor } from './supervisor';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

async function main(): Promise<number> {
  const startAbort = new AbortController();
  let supervisor: RunningSupervisor | undefined;
  let stopRequested = false;
  let stopped: ((code: number) => void) | undefined;
  const finished = new Promise<number>((resolve) => (stopped = resolve));

  const onSignal = (signal: NodeJS.Signals) => {
    // npm and the terminal may both deliver the same Ctrl-C: one stop is enough.
    if (stopRequested) return;
    stopRequested = true;
    process.stderr.write(`cairn: ${signal} received, stopping\n`);
    if (supervisor === undefined) {
      startAbort.abort();
      return;
    }
    supervisor.stop().then(
      () => stopped?.(0),
      (error: unknown) => {
        process.stderr.write(`cairn: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        stopped?.(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);

  try {
    supervisor = await startSupervisor({ signal: startAbort.signal });
  } catch (error) {
    if (error instanceof StartAbortedError) return 0;
    if (isConfigError(error)) {
      process.stderr.write(`config error: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`cairn: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  process.stdout.write(`cairn is ready at ${supervisor.httpUrl}\n`);
  if (stopRequested) await supervisor.stop();
  return stopRequested ? 0 : finished;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`cairn: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
