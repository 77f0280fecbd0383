import { buildOpenAiRequest, type OpenAiRequestInput } from '../openai/request.js';
import { ChannelConfigError, type UpstreamRequest } from '../upstream-request.js';

// Baidu Qianfan's v2 API is OpenAI-compatible (`https://qianfan.baidubce.com/v2`) and takes a v2
// API key (`bce-v3/ALTAK-.../...`) as a Bearer token. The v1 API's `APIKey|SecretKey` pair, which
// needed an OAuth access token in the query, is refused with a clear message: the channel must be
// given a v2 key. An `appid` header, when the channel sets one in its model headers, passes as is.

export const QIANFAN_CHANNEL_TYPE = 15;

export function assertQianfanV2Key(key: string): void {
  const k = key.trim();
  if (!k) throw new ChannelConfigError('the Qianfan channel needs a v2 API key (bce-v3/...)');
  if (k.includes('|')) {
    throw new ChannelConfigError(
      'APIKey|SecretKey is a Qianfan v1 key pair; create a v2 API key (bce-v3/...) instead',
    );
  }
}

export function buildQianfanRequest(input: OpenAiRequestInput): UpstreamRequest {
  assertQianfanV2Key(input.channel.key);
  return buildOpenAiRequest({ ...input, channel: { ...input.channel, type: QIANFAN_CHANNEL_TYPE } });
}
