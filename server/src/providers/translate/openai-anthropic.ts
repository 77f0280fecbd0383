// OpenAI chat/completions <-> Anthropic Messages: requests, replies and streams, both ways.

export {
  type AnthropicToOpenAiOptions,
  anthropicToOpenAiRequest,
  DEFAULT_CLAUDE_MAX_TOKENS,
  DEFAULT_THINKING_SHARE,
  type OpenAiToAnthropicOptions,
  openAiToAnthropicRequest,
} from './openai-anthropic-request.js';
export {
  type AnthropicToOpenAiResponseOptions,
  anthropicStopToFinish,
  anthropicToOpenAiResponse,
  finishToAnthropicStop,
  type OpenAiToAnthropicResponseOptions,
  openAiToAnthropicResponse,
} from './openai-anthropic-response.js';
export {
  AnthropicToOpenAiStream,
  type AnthropicToOpenAiStreamOptions,
  OpenAiToAnthropicStream,
  type OpenAiToAnthropicStreamOptions,
} from './openai-anthropic-stream.js';
export type { StreamTranslator } from './stream-translator.js';
export { TranslationError } from './translation-error.js';
