import { ErrorCode } from '@switchyard/domain';

/** A failure with an honest HTTP status and a stable code; the error handler turns it into an envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  static badRequest(message: string, details?: unknown) {
    return new ApiError(400, ErrorCode.invalidRequest, message, details);
  }
  static unauthorized(message = 'Not signed in', code: ErrorCode = ErrorCode.notLoggedIn) {
    return new ApiError(401, code, message);
  }
  static forbidden(message = 'You do not have permission to do this', code: ErrorCode = ErrorCode.forbidden) {
    return new ApiError(403, code, message);
  }
  static notFound(message = 'Not found') {
    return new ApiError(404, ErrorCode.notFound, message);
  }
  static conflict(message: string, code: ErrorCode = ErrorCode.conflict) {
    return new ApiError(409, code, message);
  }
  static tooManyRequests(message = 'Too many requests, please try again later') {
    return new ApiError(429, ErrorCode.rateLimited, message);
  }
}
