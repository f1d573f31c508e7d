/**
 * Protected tag name patterns (Gitea's models/git/protected_tag.go EnsureCompiledPattern): a pattern between
 * slashes (`/…/`, at least two characters) is a Go regular expression searched for anywhere in the name;
 * anything else a gobwas glob compiled without separators, so `*` and `?` cross `/`, compared case-sensitively.
 *
 * Regular expressions run in RE2 (re2-wasm: Go's regexp syntax and its linear-time guarantee). Its WebAssembly
 * heap is fixed at 16 MiB and a pattern whose program does not fit aborts the compile (`\pL{1000}` does): that
 * is refused as an invalid pattern, so a rule that was written always compiles. Compiled expressions live in
 * that heap and are not garbage-collected, so a bounded number is kept and each evicted one is freed.
 */
import type { RE2 } from 're2-wasm';
import { PatternSyntaxError, globMatcher } from './glob';

type Re2Module = typeof import('re2-wasm');

/** Loaded on first use: the WebAssembly module costs tens of milliseconds and megabytes that most users never need. */
let engine: Re2Module | undefined;
function re2(): Re2Module {
  engine ??= require('re2-wasm') as Re2Module;
  return engine;
}

/** RE2's compiled program, freed with `delete` (an Emscripten object the RE2 class keeps privately). */
interface WasmBacked {
  wrapper: { delete(): void };
}

const REGEX_CACHE_LIMIT = 64;
const regexes = new Map<string, RE2>();

function compileRegex(source: string): RE2 {
  const cached = regexes.get(source);
  if (cached !== undefined) return cached;
  let compiled: RE2;
  try {
    // RE2 in re2-wasm is always Unicode-aware and refuses to run without the flag.
    compiled = new (re2().RE2)(source, 'u');
  } catch (error) {
    if (error instanceof SyntaxError) throw new PatternSyntaxError(error.message);
    // The fixed heap is exhausted: WebAssembly's RuntimeError (the module stays usable).
    if (error instanceof Error && error.name === 'RuntimeError') throw new PatternSyntaxError(`regular expression too large: /${source}/`);
    throw error;
  }
  if (regexes.size >= REGEX_CACHE_LIMIT) {
    const [oldest, evicted] = regexes.entries().next().value as [string, RE2];
    regexes.delete(oldest);
    (evicted as unknown as WasmBacked).wrapper.delete();
  }
  regexes.set(source, compiled);
  return compiled;
}

/** Whether `pattern` is a regular expression (`/…/`) rather than a glob. */
export function isTagRegexPattern(pattern: string): boolean {
  return pattern.length >= 2 && pattern.startsWith('/') && pattern.endsWith('/');
}

/**
 * A predicate telling whether a tag name matches `pattern`. Throws PatternSyntaxError for a pattern that does
 * not compile (Gitea's EnsureCompiledPattern error).
 */
export function tagPatternMatcher(pattern: string): (name: string) => boolean {
  if (!isTagRegexPattern(pattern)) return globMatcher(pattern, { separators: '', invalid: 'throw' });
  const source = pattern.slice(1, -1);
  compileRegex(source);
  // Looked up on every call: the compiled expression may have been evicted (and freed) since.
  return (name) => compileRegex(source).test(name);
}
