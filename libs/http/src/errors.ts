/**
 * Gitea's error bodies (services/context/api.go) and the one error type gateway handlers throw to answer
 * with one of them. The body needs ROOT_URL, which only the gateway knows, so an HttpError renders its body
 * when it is sent.
 */

/** `<ROOT_URL>api/swagger`: the `url` of every Gitea error body. `rootUrl` ends with "/". */
export function swaggerUrl(rootUrl: string): string {
  return `${rootUrl}api/swagger`;
}

/** `ctx.APIError(status, msg)`. */
export interface ErrorBody {
  message: string;
  url: string;
}

/** `ctx.APIErrorNotFound(...)`: `errors` is null when no error was given. */
export interface NotFoundBody {
  errors: string[] | null;
  message: string;
  url: string;
}

/** `ctx.JSON(status, map[string]string{"message": …})`: sign-in checks and sudo answer without `url`. */
export interface MessageOnlyBody {
  message: string;
}

export type HttpErrorBody = ErrorBody | NotFoundBody | MessageOnlyBody;

/** Which of Gitea's three bodies an error is sent with. */
export type HttpErrorShape = 'error' | 'notFound' | 'messageOnly';

export function errorBody(rootUrl: string, message: string): ErrorBody {
  return { message, url: swaggerUrl(rootUrl) };
}

export function notFoundBody(rootUrl: string, message = 'not found', errors: string[] | null = null): NotFoundBody {
  return { errors, message, url: swaggerUrl(rootUrl) };
}

export interface HttpErrorOptions {
  shape?: HttpErrorShape;
  /** The `errors` list of a not-found body. */
  errors?: string[] | null;
  /** Logged, never sent. */
  cause?: unknown;
  /** Sent as `Retry-After` (seconds): when a refused caller may try again (429, 503). */
  retryAfterSeconds?: number;
}

/** An answer with an error status. Thrown by handlers and guards; the gateway turns it into the response. */
export class HttpError extends Error {
  readonly status: number;
  readonly shape: HttpErrorShape;
  readonly errors: string[] | null;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, message: string, options: HttpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.shape = options.shape ?? 'error';
    this.errors = options.errors ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  body(rootUrl: string): HttpErrorBody {
    switch (this.shape) {
      case 'notFound':
        return notFoundBody(rootUrl, this.message, this.errors);
      case 'messageOnly':
        return { message: this.message };
      default:
        return errorBody(rootUrl, this.message);
    }
  }

  static badRequest(message: string): HttpError {
    return new HttpError(400, message);
  }
  static unauthorized(message: string): HttpError {
    return new HttpError(401, message);
  }
  static forbidden(message: string): HttpError {
    return new HttpError(403, message);
  }
  /** Gitea's `APIErrorNotFound`: `{"errors": …, "message": "not found", "url": …}`. */
  static notFound(message = 'not found', errors: string[] | null = null): HttpError {
    return new HttpError(404, message, { shape: 'notFound', errors });
  }
  static unprocessable(message: string): HttpError {
    return new HttpError(422, message);
  }
  /** A body with only `message` (Gitea's sign-in checks and sudo). */
  static messageOnly(status: number, message: string): HttpError {
    return new HttpError(status, message, { shape: 'messageOnly' });
  }
}

export function isHttpError(error: unknown): error is HttpError {
  return error instanceof HttpError;
}
