import {
  buildOpenAiRequest,
  type OpenAiEndpoint,
  type OpenAiRequestInput,
  UnsupportedEndpointError,
} from '../openai/request.js';
import type { UpstreamRequest } from '../upstream-request.js';

// Azure OpenAI speaks OpenAI's wire format under per-deployment URLs:
//   {base}/openai/deployments/{deployment}/{path}?api-version={channel other}
// with the resource key in `api-key`. The URL and header rules live in the OpenAI builder (they
// share the body handling: bytes kept, `include_usage` added); this module is the Azure entry
// point and says which OpenAI endpoints a resource has. The deployment is the model name after
// the channel's model mapping, unchanged: Azure deployment names may contain dots today, so an
// operator whose deployment is named without them maps the model to it.

/** What an Azure OpenAI resource serves. */
export const AZURE_ENDPOINTS: ReadonlySet<OpenAiEndpoint> = new Set([
  'chat/completions',
  'completions',
  'responses',
  'embeddings',
  'images/generations',
  'images/edits',
  'audio/speech',
  'audio/transcriptions',
  'audio/translations',
  'models',
]);

export const AZURE_CHANNEL_TYPE = 3;

/** Builds the request of an Azure OpenAI channel (type 3). */
export function buildAzureRequest(input: OpenAiRequestInput): UpstreamRequest {
  if (!AZURE_ENDPOINTS.has(input.endpoint)) {
    throw new UnsupportedEndpointError(input.endpoint, 'Azure OpenAI has no such API');
  }
  return buildOpenAiRequest({ ...input, channel: { ...input.channel, type: AZURE_CHANNEL_TYPE } });
}
