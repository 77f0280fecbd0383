// OpenAI chat/completions <-> Gemini generateContent: requests, replies and streams, both ways.

export {
  type GeminiToOpenAiOptions,
  geminiToOpenAiRequest,
  type OpenAiToGeminiOptions,
  openAiToGeminiRequest,
  SKIP_THOUGHT_SIGNATURE,
} from './openai-gemini-request.js';
export {
  type GeminiToOpenAiResponseOptions,
  geminiFinishToOpenAi,
  geminiToOpenAiResponse,
  type OpenAiToGeminiResponseOptions,
  openAiFinishToGemini,
  openAiToGeminiResponse,
} from './openai-gemini-response.js';
export {
  GeminiToOpenAiStream,
  type GeminiToOpenAiStreamOptions,
  OpenAiToGeminiStream,
  type OpenAiToGeminiStreamOptions,
} from './openai-gemini-stream.js';
export type { StreamTranslator } from './stream-translator.js';
export { TranslationError } from './translation-error.js';
