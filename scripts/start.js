#!/usr/bin/env node
// `npm start`: builds what is not built yet, then runs the supervisor. The supervisor gets its own process
// group, so a Ctrl-C on the terminal reaches only this script, which passes one SIGINT on: the supervisor
// then stops everything in order (gateway, services, bus, database) instead of each process (the embedded
// PostgreSQL included) receiving the signal at once.
'use strict';
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ensureBuilt } = require('./ensure-built');

ensureBuilt();

const main = path.join(__dirname, '..', 'services', 'supervisor', 'dist', 'main.js');
const child = spawn(process.execPath, [main, ...process.argv.slice(2)], { stdio: 'inherit', detached: true });

const forwarded = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    // npm and the terminal can both deliver the same Ctrl-C; the supervisor needs it once.
    if (forwarded.has(signal)) return;
    forwarded.add(signal);
    child.kill(signal);
  });
}

child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0));
});
