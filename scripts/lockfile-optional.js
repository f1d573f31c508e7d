#!/usr/bin/env node
// The npm registry reachable from our machines lacks some other platforms' builds of native packages
// (@swc/core-darwin-arm64, @turbo/windows-64, …). `npm install` then leaves those optional dependencies out
// of package-lock.json, and `npm ci` refuses the lockfile ("Missing: … from lock file"). This restores
// each missing optional entry where npm's ideal tree expects it (under its dependent, version-less,
// optional), which is what npm itself would record for an optional dependency it could not resolve.
// Idempotent; runs as the root `postinstall`, so every install leaves a lockfile `npm ci` accepts.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
if (!fs.existsSync(file)) process.exit(0);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages ?? {};

/** Whether `name` resolves from the package at `location`, walking up node_modules as node does. */
function resolves(location, name) {
  let dir = location;
  for (;;) {
    if (packages[`${dir === '' ? '' : `${dir}/`}node_modules/${name}`] !== undefined) return true;
    if (dir === '') return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut === -1 ? '' : dir.slice(0, cut);
  }
}

let added = 0;
for (const [location, entry] of Object.entries({ ...packages })) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (resolves(location, name)) continue;
    packages[`${location === '' ? '' : `${location}/`}node_modules/${name}`] = { optional: true };
    added += 1;
  }
}
if (added > 0) {
  fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`package-lock.json: restored ${added} optional platform entries`);
}
