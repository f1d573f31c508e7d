/**
 * Where things are, from both the sources (jest runs them in place) and the compiled harness in
 * `bench/dist/` (what `npm run bench` runs).
 */
import * as path from 'node:path';

export const BENCH_DIR = path.basename(__dirname) === 'dist' ? path.dirname(__dirname) : __dirname;
export const ROOT = path.dirname(BENCH_DIR);
export const DIST_DIR = path.join(BENCH_DIR, 'dist');
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const SUPERVISOR_MAIN = path.join(ROOT, 'services', 'supervisor', 'dist', 'main.js');
export const CLI_MAIN = path.join(ROOT, 'services', 'cli', 'dist', 'main.js');

/** The compiled baseline server `name` (a module of `bench/baselines/`). */
export function baselineScript(name: string): string {
  return path.join(DIST_DIR, 'baselines', `${name}.js`);
}
