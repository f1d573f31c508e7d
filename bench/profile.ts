/**
 * `--profile`: preloaded into every Cairn process (`NODE_OPTIONS=--require …`; Node refuses `--cpu-prof`
 * there). Profiles the whole process life and writes `<service>-<pid>.cpuprofile` (open it in Chrome
 * DevTools or speedscope) to `$CAIRN_BENCH_PROFILE_DIR` when the process exits.
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector';
import * as path from 'node:path';

const dir = process.env.CAIRN_BENCH_PROFILE_DIR;
if (dir !== undefined && dir !== '') {
  // services/<name>/dist/main.js → <name>
  const name = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'node')));
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  // The in-process session answers synchronously, so this works in an 'exit' handler.
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (error !== null) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
