#!/usr/bin/env node
// Builds the workspace packages (turbo) if any of them is not built or is older than its sources, so
// `npm start`, `npm run cairn` and `npm run bench` work straight after `npm ci`. The check only compares
// file times, so an up-to-date tree costs milliseconds instead of a turbo run.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');

/** Newest modification time under `dir` (files only), 0 when it does not exist. */
function newestMtime(dir, skip = () => false) {
  let newest = 0;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (skip(full)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full, skip));
    else if (entry.isFile()) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function workspacePackages() {
  const packages = [];
  for (const group of ['libs', 'services']) {
    const base = path.join(root, group);
    let names = [];
    try {
      names = fs.readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = path.join(base, name);
      if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'tsconfig.json'))) packages.push(dir);
    }
  }
  return packages;
}

/** Packages whose dist is missing or older than their sources (tests excluded: they are not built). */
function stalePackages() {
  return workspacePackages().filter((dir) => {
    const built = newestMtime(path.join(dir, 'dist'));
    if (built === 0) return true;
    const sources = Math.max(
      newestMtime(path.join(dir, 'src'), (file) => file.endsWith('.test.ts')),
      fs.statSync(path.join(dir, 'tsconfig.json')).mtimeMs,
    );
    return sources > built;
  });
}

/** Runs the build if needed; exits the process with turbo's status if the build fails. */
function ensureBuilt() {
  const stale = stalePackages();
  if (stale.length === 0) return;
  const names = stale.map((dir) => path.relative(root, dir)).join(', ');
  process.stderr.write(`cairn: building (${names} not built or changed)…\n`);
  const turbo = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo');
  if (!fs.existsSync(turbo)) {
    process.stderr.write('cairn: turbo is not installed; run "npm ci" first\n');
    process.exit(1);
  }
  const result = spawnSync(turbo, ['run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    process.stderr.write('cairn: the build failed (see above)\n');
    process.exit(result.status ?? 1);
  }
}

module.exports = { ensureBuilt, stalePackages };

if (require.main === module) ensureBuilt();
