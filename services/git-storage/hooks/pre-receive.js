'use strict';
/**
 * git-storage's pre-receive hook (run by `git receive-pack` through a wrapper git-storage writes at start, see
 * src/push/hook-server.ts). It decides nothing itself: it hands the proposed ref updates (its stdin) and the
 * push's quarantine environment to the git-storage process over the Unix socket named in CAIRN_HOOK_SOCKET,
 * prints the answer's message on stderr (git shows it to the pusher as `remote: …`) and exits non-zero when
 * the push is refused, so git discards the quarantined objects. Plain JavaScript: git runs it without a build.
 */
const net = require('node:net');

/** Any answer that is not a clear yes refuses the push. */
function finish(accepted, message) {
  if (message) process.stderr.write(`${message}\n`);
  process.exitCode = accepted ? 0 : 1;
}

const input = [];
process.stdin.on('data', (chunk) => input.push(chunk));
process.stdin.on('end', () => {
  const request = JSON.stringify({
    pushId: process.env.CAIRN_PUSH_ID || '',
    updates: Buffer.concat(input).toString('utf8'),
    objectDirectory: process.env.GIT_OBJECT_DIRECTORY || '',
    alternateObjectDirectories: process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES || '',
    quarantinePath: process.env.GIT_QUARANTINE_PATH || '',
  });
  const reply = [];
  const socket = net.createConnection(process.env.CAIRN_HOOK_SOCKET || '');
  socket.on('data', (chunk) => reply.push(chunk));
  socket.on('error', () => finish(false, 'internal error: the push could not be checked'));
  socket.on('end', () => {
    let verdict;
    try {
      verdict = JSON.parse(Buffer.concat(reply).toString('utf8'));
    } catch {
      finish(false, 'internal error: the push could not be checked');
      return;
    }
    finish(verdict.accepted === true, typeof verdict.message === 'string' ? verdict.message : '');
  });
  socket.end(request);
});
