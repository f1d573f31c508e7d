/**
 * Baseline for `git clone` over smart HTTP: git's own `git http-backend` as CGI behind a bare `node:http`
 * server (@cairn/testing git-cgi.ts), anonymous, serving the repositories under BENCH_GIT_PROJECT_ROOT.
 */
import { gitHttpBackend } from '@cairn/testing';
import { requireEnv, serveBaseline } from './serve';

serveBaseline(gitHttpBackend(requireEnv('BENCH_GIT_PROJECT_ROOT')));
