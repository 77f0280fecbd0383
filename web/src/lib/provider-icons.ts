// The model owners' brand icons, bundled: a self-hosted console never fetches them from an outside
// host (privacy, and offline or firewalled installs). Each is its own file under assets/, loaded
// only when an icon is shown. Keys are the icon names of the @lobehub/icons-static-* sets.
import ai360 from '@lobehub/icons-static-svg/icons/ai360-color.svg?url';
import azure from '@lobehub/icons-static-svg/icons/azure-color.svg?url';
import baichuan from '@lobehub/icons-static-svg/icons/baichuan-color.svg?url';
import bedrock from '@lobehub/icons-static-svg/icons/bedrock-color.svg?url';
import claude from '@lobehub/icons-static-svg/icons/claude-color.svg?url';
import cloudflare from '@lobehub/icons-static-svg/icons/cloudflare-color.svg?url';
import cohere from '@lobehub/icons-static-svg/icons/cohere-color.svg?url';
import coze from '@lobehub/icons-static-svg/icons/coze.svg?url';
import dbrx from '@lobehub/icons-static-svg/icons/dbrx-color.svg?url';
import deepseek from '@lobehub/icons-static-svg/icons/deepseek-color.svg?url';
import flux from '@lobehub/icons-static-svg/icons/flux.svg?url';
import gemini from '@lobehub/icons-static-svg/icons/gemini-color.svg?url';
import github from '@lobehub/icons-static-svg/icons/github.svg?url';
import grok from '@lobehub/icons-static-svg/icons/grok.svg?url';
import groq from '@lobehub/icons-static-svg/icons/groq.svg?url';
import hunyuan from '@lobehub/icons-static-svg/icons/hunyuan-color.svg?url';
import ideogram from '@lobehub/icons-static-svg/icons/ideogram.svg?url';
import jina from '@lobehub/icons-static-svg/icons/jina.svg?url';
import kling from '@lobehub/icons-static-svg/icons/kling-color.svg?url';
import meta from '@lobehub/icons-static-svg/icons/meta-color.svg?url';
import midjourney from '@lobehub/icons-static-svg/icons/midjourney.svg?url';
import minimax from '@lobehub/icons-static-svg/icons/minimax-color.svg?url';
import mistral from '@lobehub/icons-static-svg/icons/mistral-color.svg?url';
import moonshot from '@lobehub/icons-static-svg/icons/moonshot.svg?url';
import ollama from '@lobehub/icons-static-svg/icons/ollama.svg?url';
import openai from '@lobehub/icons-static-svg/icons/openai.svg?url';
import openrouter from '@lobehub/icons-static-svg/icons/openrouter-color.svg?url';
import palm from '@lobehub/icons-static-svg/icons/palm-color.svg?url';
import qwen from '@lobehub/icons-static-svg/icons/qwen-color.svg?url';
import recraft from '@lobehub/icons-static-svg/icons/recraft.svg?url';
import replicate from '@lobehub/icons-static-svg/icons/replicate.svg?url';
import siliconcloud from '@lobehub/icons-static-svg/icons/siliconcloud-color.svg?url';
import spark from '@lobehub/icons-static-svg/icons/spark-color.svg?url';
import stability from '@lobehub/icons-static-svg/icons/stability-color.svg?url';
import suno from '@lobehub/icons-static-svg/icons/suno.svg?url';
import vertexai from '@lobehub/icons-static-svg/icons/vertexai-color.svg?url';
import wenxin from '@lobehub/icons-static-svg/icons/wenxin-color.svg?url';
import yi from '@lobehub/icons-static-svg/icons/yi-color.svg?url';
import zhipu from '@lobehub/icons-static-svg/icons/zhipu-color.svg?url';

const BUNDLED: Record<string, string> = {
  ai360,
  azure,
  baichuan,
  bedrock,
  claude,
  cloudflare,
  cohere,
  coze,
  dbrx,
  deepseek,
  flux,
  gemini,
  github,
  grok,
  groq,
  hunyuan,
  ideogram,
  jina,
  kling,
  meta,
  midjourney,
  minimax,
  mistral,
  moonshot,
  ollama,
  openai,
  openrouter,
  palm,
  qwen,
  recraft,
  replicate,
  siliconcloud,
  spark,
  stability,
  suno,
  vertexai,
  wenxin,
  yi,
  zhipu,
};

/**
 * The bundled copy of an icon named by a lobehub icon-set address (what the reserved model owners
 * store, on any CDN or mirror, PNG or SVG, light or dark), or undefined for any other address.
 */
export function bundledIcon(url: string): string | undefined {
  const m = /@lobehub\/icons-static-(?:png|svg)\b.*\/([a-z0-9-]+?)(?:-color)?\.(?:png|svg|webp)$/i.exec(
    url.trim(),
  );
  return m ? BUNDLED[m[1]!.toLowerCase()] : undefined;
}
