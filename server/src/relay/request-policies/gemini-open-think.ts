// GeminiOpenThink: for the models it sets to true, the Gemini request asks for the model's thoughts
// (`generationConfig.thinkingConfig.includeThoughts`) even when the client did not ask for
// reasoning. A budget or level the request already carries is kept.

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `body` (a Gemini generateContent request for `model`) with thoughts included when `openThink`
 * names the model; the same object when it does not, or when the request already decides.
 */
export function withOpenThink(body: Json, model: string, openThink: Readonly<Record<string, boolean>>): Json {
  if (openThink[model] !== true) return body;
  // The snake_case spelling is what some clients send; the upstream reads either.
  const configKey =
    isObject(body.generation_config) && !isObject(body.generationConfig)
      ? 'generation_config'
      : 'generationConfig';
  const config = isObject(body[configKey]) ? (body[configKey] as Json) : {};
  const thinkingKey =
    isObject(config.thinking_config) && !isObject(config.thinkingConfig)
      ? 'thinking_config'
      : 'thinkingConfig';
  const thinking = isObject(config[thinkingKey]) ? (config[thinkingKey] as Json) : {};
  if (thinking.includeThoughts !== undefined || thinking.include_thoughts !== undefined) return body;
  return { ...body, [configKey]: { ...config, [thinkingKey]: { ...thinking, includeThoughts: true } } };
}
