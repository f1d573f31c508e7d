#!/usr/bin/env node
// `npm run bench`: compiles the harness (bench/*.ts → bench/dist) when a source is newer than the build,
// then runs it with the arguments given. Run after scripts/ensure-built.js, which builds Cairn itself.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const dist = path.join(__dirname, 'dist');

/** Newest modification time of the harness sources (tests excluded: they are not compiled). */
function newestSource() {
  let newest = fs.statSync(path.join(__dirname, 'tsconfig.json')).mtimeMs;
  for (const dir of ['.', 'scenarios', 'baselines']) {
    for (const name of fs.readdirSync(path.join(__dirname, dir))) {
      if (name.endsWith('.ts') && !name.endsWith('.test.ts')) newest = Math.max(newest, fs.statSync(path.join(__dirname, dir, name)).mtimeMs);
    }
  }
  return newest;
}

function builtAt() {
  try {
    return fs.statSync(path.join(dist, 'main.js')).mtimeMs;
  } catch {
    return 0;
  }
}

if (newestSource() > builtAt()) {
  const tsc = require.resolve('typescript/bin/tsc');
  // From scratch, so a module whose source was removed does not linger in dist/.
  fs.rmSync(dist, { recursive: true, force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
  if (compiled.status !== 0) {
    process.stderr.write('bench: the harness does not compile (see above)\n');
    process.exit(compiled.status ?? 1);
  }
}
require('./dist/main.js');
