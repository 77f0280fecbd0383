// The OpenAI chat/completions wire shapes the translators write. Inbound bodies are read field by
// field (json-reading.ts); these types describe what we produce.

export type OpenAiFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAiContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'file'; file: { file_data?: string; filename?: string; file_id?: string } };

export interface OpenAiMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | OpenAiContentPart[] | null;
  name?: string;
  tool_calls?: OpenAiToolCall[];
  tool_call_id?: string;
}

export interface OpenAiTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type OpenAiToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; function: { name: string } };

export type OpenAiResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean; description?: string };
    };

export interface OpenAiChatRequest {
  model: string;
  messages: OpenAiMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  stop?: string[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  tools?: OpenAiTool[];
  tool_choice?: OpenAiToolChoice;
  parallel_tool_calls?: boolean;
  reasoning_effort?: string;
  response_format?: OpenAiResponseFormat;
  user?: string;
}

/** The assistant message of a reply; `reasoning_content` is the DeepSeek-style reasoning field. */
export interface OpenAiResponseMessage {
  role: 'assistant';
  content: string | null;
  refusal: null;
  reasoning_content?: string;
  tool_calls?: OpenAiToolCall[];
}

export interface OpenAiChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: OpenAiResponseMessage;
    logprobs: null;
    finish_reason: OpenAiFinishReason;
  }[];
  usage?: Record<string, unknown>;
}

export interface OpenAiChunkToolCall {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface OpenAiChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: OpenAiChunkToolCall[];
}

export interface OpenAiChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: OpenAiChunkDelta;
    logprobs: null;
    finish_reason: OpenAiFinishReason | null;
  }[];
  usage?: Record<string, unknown>;
}
