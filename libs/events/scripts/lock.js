#!/usr/bin/env node
// `npm run events-lock`: freezes the generated payload schemas as schema/<EVENTS_VERSION>.json, the
// promise compat.test.ts holds later payloads to. Run once per version, when it is introduced; a lock is never
// rewritten (a breaking change takes a new version instead: docs/contributing.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
let version;
try {
  ({ EVENTS_VERSION: version } = require(path.join(root, 'dist/subjects.js')));
} catch {
  console.error('@cairn/events is not built: run `npx turbo run build` first');
  process.exit(1);
}
const lock = path.join(root, 'schema', `${version}.json`);
if (fs.existsSync(lock)) {
  console.error(`${path.relative(process.cwd(), lock)} exists: the ${version} lock is frozen; a breaking payload change needs a new EVENTS_VERSION`);
  process.exit(1);
}
fs.mkdirSync(path.dirname(lock), { recursive: true });
fs.copyFileSync(path.join(root, 'src/gen/payload-schemas.json'), lock);
console.log(`wrote ${path.relative(process.cwd(), lock)}`);
