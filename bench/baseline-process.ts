/** Starts a compiled baseline server (`bench/baselines/<name>.ts`) as a child process. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { ListeningMessage } from './baselines/serve';
import { captureOutput, exitOf, terminate } from './child-process';
import { baselineScript } from './paths';
import type { RunningBaseline } from './scenarios/types';

const START_TIMEOUT_MS = 15_000;

export async function startBaselineProcess(name: string, env: Record<string, string>): Promise<RunningBaseline> {
  const script = baselineScript(name);
  if (!fs.existsSync(script)) throw new Error(`no baseline "${name}" (${script} is missing)`);
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    // Its own process group: a Ctrl-C reaches the harness only, which stops things in order.
    detached: true,
  });
  const output = captureOutput(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baseline "${name}" did not start within ${START_TIMEOUT_MS} ms:\n${output()}`)), START_TIMEOUT_MS);
    child.once('message', (message: ListeningMessage) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    void exitOf(child).then((exit) => {
      clearTimeout(timer);
      reject(new Error(`baseline "${name}" exited (${JSON.stringify(exit)}) before listening:\n${output()}`));
    });
  }).catch(async (error: unknown) => {
    await terminate(child, 1000);
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exit = await terminate(child, 5000);
      if (exit.code !== 0) process.stderr.write(`bench: baseline "${name}" exited ${JSON.stringify(exit)}:\n${output()}\n`);
    },
  };
}
