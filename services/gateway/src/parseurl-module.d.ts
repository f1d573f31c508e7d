// The `parseurl` package (express's and its router's URL parser) ships no type declarations; this is the part the gateway uses.
declare module 'parseurl' {
  import type { IncomingMessage } from 'node:http';
  import type { Url } from 'node:url';

  /** The request's URL parsed (memoised on the request while `url` does not change); undefined without a URL. */
  function parseurl(req: IncomingMessage): Url | undefined;
  export = parseurl;
}
