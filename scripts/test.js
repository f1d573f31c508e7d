#!/usr/bin/env node
// `npm test`: generated code must match proto/, everything must build and type-check, then every jest
// suite runs (unit, integration against the machine's PostgreSQL and NATS, end-to-end on the built supervisor).
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

// 1. Generated code is reproducible from its sources (proto/, libs/events/src/payloads.ts): regenerate, then
// nothing may differ.
run('npm', ['run', '--silent', 'generate']);
for (const generated of ['libs/proto/src/gen', 'libs/events/src/gen']) {
  const stale = execFileSync('git', ['status', '--porcelain', '--', generated], { cwd: root }).toString();
  if (stale.trim() !== '') {
    console.error(`Generated code in ${generated} is stale; run \`npm run generate\` and commit:\n` + stale);
    process.exit(1);
  }
}
// 2. Build (type-checks every package's sources) and type-check the tests.
run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
run('npx', ['tsc', '-p', 'tsconfig.test.json']);
// 3. Every test, closing with one plain summary line that CI reads.
const report = path.join(os.tmpdir(), `cairn-jest-${process.pid}.json`);
const jest = spawnSync('npx', ['jest', '--maxWorkers=2', '--json', `--outputFile=${report}`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
try {
  const { numPassedTests, numFailedTests, numPendingTests } = JSON.parse(fs.readFileSync(report, 'utf8'));
  console.log(`\ntests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests} skipped`);
  fs.rmSync(report, { force: true });
} catch {
  // No report: jest failed before running anything; its exit code says so.
}
process.exit(jest.status ?? 1);
