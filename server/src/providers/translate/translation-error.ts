/**
 * The client's request cannot be expressed in the channel's protocol (an audio part for a channel
 * without audio input, a file referenced by id). The relay answers it as the client's own 400: no
 * channel is at fault, so nothing is retried or frozen.
 */
export class TranslationError extends Error {
  readonly status = 400;

  /** The request field at fault, when one is: SDKs show it as the error's `param`. */
  constructor(
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}
