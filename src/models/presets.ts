import type { RequestParams } from '../core/request-params.js';

/**
 * Presets for the models people evaluate on ReXVQA: the 2025 paper's eight and the models of 2026. A preset
 * only fills in configuration of the one OpenAI-compatible adapter — model id, default endpoint, key variable,
 * known limits, and the request options a model needs (a thinking switch) — each checked against the serving
 * docs named in `source`. See docs/models.md for the table and how each model is put behind an endpoint.
 */
export interface ModelPreset {
  name: string;
  /** The model id the server expects (the Hugging Face id for vLLM's default --served-model-name). */
  model: string;
  /** Where it is usually served: a local vLLM server, or a provider's OpenAI-compatible API. */
  defaultBaseUrl: string;
  apiKeyEnv: string | null;
  /** Most images one request may carry (null: no known limit below the study's view count). */
  maxImages: number | null;
  /** False when the chat template has no system role: the system text is then put at the start of the user turn. */
  systemPrompt: boolean;
  servedBy: string;
  /** Request options sent with every request (a `--param` of the same key replaces one). */
  params?: RequestParams;
  /** Completion tokens when --max-tokens is not given: a thinking model's reasoning is spent from them. */
  maxTokens?: number;
  /** Temperature when --temperature is not given: for APIs that refuse any other (OpenAI's reasoning models take only 1). */
  temperature?: number;
  /** Why the preset no longer reproduces its model as published (said on every use); absent while it does. */
  retired?: string;
  /** The serving documentation the preset was checked against. */
  source: string;
}

const VLLM = 'http://127.0.0.1:8000/v1';
const GEMINI = 'https://generativelanguage.googleapis.com/v1beta/openai/';
/** Thinking models write thousands of tokens before they answer: the default for their presets. */
const THINKING_TOKENS = 8192;

const local = (name: string, model: string, servedBy: string, source: string, more: Partial<ModelPreset> = {}): ModelPreset => ({
  name, model, defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: true, servedBy, source, ...more,
});

/** The presets, by name. */
export const PRESETS: Record<string, ModelPreset> = {
  // The ReXVQA paper's eight (2025).
  'medgemma-4b-it': local('medgemma-4b-it', 'google/medgemma-4b-it', 'vLLM (`vllm serve google/medgemma-4b-it --limit-mm-per-prompt \'{"image": 4}\'`)', 'https://huggingface.co/google/medgemma-4b-it'),
  'qwen2.5-vl-7b': local('qwen2.5-vl-7b', 'Qwen/Qwen2.5-VL-7B-Instruct', 'vLLM or SGLang', 'https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct'),
  'qwen2-vl-7b': local('qwen2-vl-7b', 'Qwen/Qwen2-VL-7B-Instruct', 'vLLM or SGLang', 'https://huggingface.co/Qwen/Qwen2-VL-7B-Instruct'),
  'janus-pro-7b': local('janus-pro-7b', 'deepseek-ai/Janus-Pro-7B', 'not served by stock vLLM: wrap the reference `janus` inference code in a small OpenAI-compatible HTTP server', 'https://huggingface.co/deepseek-ai/Janus-Pro-7B', { maxImages: 1 }),
  'eagle2-9b': local('eagle2-9b', 'nvidia/Eagle2-9B', 'vLLM with --trust-remote-code where your vLLM version supports it; otherwise an OpenAI-compatible wrapper around its Transformers code', 'https://huggingface.co/nvidia/Eagle2-9B'),
  'phi-3.5-vision': local('phi-3.5-vision', 'microsoft/Phi-3.5-vision-instruct', 'vLLM (`--trust-remote-code --limit-mm-per-prompt \'{"image": 4}\'`)', 'https://huggingface.co/microsoft/Phi-3.5-vision-instruct', { systemPrompt: false }),
  'llava-1.5-7b': local('llava-1.5-7b', 'llava-hf/llava-1.5-7b-hf', 'vLLM (trained on one image per prompt: only the first, frontal view is sent)', 'https://huggingface.co/llava-hf/llava-1.5-7b-hf', { maxImages: 1, systemPrompt: false }),
  'gemini-1.5-pro': {
    name: 'gemini-1.5-pro', model: 'gemini-1.5-pro', defaultBaseUrl: GEMINI, apiKeyEnv: 'GEMINI_API_KEY', maxImages: null, systemPrompt: true,
    servedBy: "Google's OpenAI-compatible Gemini API", retired: 'Google has retired the Gemini 1.5 models from its API; use preset:gemini-2.5-pro (or another current Gemini id with openai:<id>)',
    source: 'https://ai.google.dev/gemini-api/docs/openai',
  },

  // Medical models of 2025–26.
  // https://huggingface.co/google/medgemma-27b-it: the 27B multimodal MedGemma (not medgemma-27b-text-it, which takes no images).
  'medgemma-27b-it': local('medgemma-27b-it', 'google/medgemma-27b-it', 'vLLM (`vllm serve google/medgemma-27b-it --limit-mm-per-prompt \'{"image": 4}\'`)', 'https://huggingface.co/google/medgemma-27b-it'),
  // Lingshu is built on Qwen2.5-VL, so stock vLLM serves it as one.
  'lingshu-7b': local('lingshu-7b', 'lingshu-medical-mllm/Lingshu-7B', 'vLLM (`vllm serve lingshu-medical-mllm/Lingshu-7B`: a Qwen2.5-VL architecture)', 'https://huggingface.co/lingshu-medical-mllm/Lingshu-7B'),
  'lingshu-32b': local('lingshu-32b', 'lingshu-medical-mllm/Lingshu-32B', 'vLLM (`vllm serve lingshu-medical-mllm/Lingshu-32B --tensor-parallel-size 2`)', 'https://huggingface.co/lingshu-medical-mllm/Lingshu-32B'),
  // HuatuoGPT-Vision-7B is LLaVA-style custom code (its repo's cli.py HuatuoChatbot), which stock vLLM does not load.
  'huatuogpt-vision-7b': local('huatuogpt-vision-7b', 'FreedomIntelligence/HuatuoGPT-Vision-7B', "not served by stock vLLM: wrap the repository's HuatuoChatbot (cli.py) in a small OpenAI-compatible HTTP server", 'https://github.com/FreedomIntelligence/HuatuoGPT-Vision'),
  // CheXagent-2 (3B) runs through its remote code in Transformers; vLLM has no support for its architecture.
  'chexagent-2-3b': local('chexagent-2-3b', 'StanfordAIMI/CheXagent-2-3b', 'not served by stock vLLM: wrap its Transformers remote code (trust_remote_code) in a small OpenAI-compatible HTTP server; trained on one image per prompt', 'https://huggingface.co/StanfordAIMI/CheXagent-2-3b', { maxImages: 1 }),

  // General open models of 2025–26.
  'qwen2.5-vl-72b': local('qwen2.5-vl-72b', 'Qwen/Qwen2.5-VL-72B-Instruct', 'vLLM (`vllm serve Qwen/Qwen2.5-VL-72B-Instruct --tensor-parallel-size 4`) or SGLang', 'https://huggingface.co/Qwen/Qwen2.5-VL-72B-Instruct'),
  'qwen3-vl-8b': local('qwen3-vl-8b', 'Qwen/Qwen3-VL-8B-Instruct', 'vLLM ≥ 0.11 (`vllm serve Qwen/Qwen3-VL-8B-Instruct`); the Instruct edition does not think', 'https://docs.vllm.ai/projects/recipes/en/stable/Qwen/Qwen3-VL.html'),
  // The Thinking edition always reasons; vLLM's qwen3 parser returns it in message.reasoning.
  'qwen3-vl-8b-thinking': local('qwen3-vl-8b-thinking', 'Qwen/Qwen3-VL-8B-Thinking', 'vLLM ≥ 0.11 (`vllm serve Qwen/Qwen3-VL-8B-Thinking --reasoning-parser qwen3`); always thinks', 'https://docs.vllm.ai/projects/recipes/en/stable/Qwen/Qwen3-VL.html', { maxTokens: THINKING_TOKENS }),
  'gemma-3-27b': local('gemma-3-27b', 'google/gemma-3-27b-it', 'vLLM (`vllm serve google/gemma-3-27b-it --limit-mm-per-prompt \'{"image": 4}\'`)', 'https://huggingface.co/google/gemma-3-27b-it'),
  // Gemma 4 thinks only when asked: vLLM's gemma4 reasoning parser, enable_thinking in chat_template_kwargs.
  'gemma-4-31b': local('gemma-4-31b', 'google/gemma-4-31B-it', 'vLLM (`vllm serve google/gemma-4-31B-it --reasoning-parser gemma4`); thinking off', 'https://docs.vllm.ai/en/stable/features/reasoning_outputs/', { params: { chat_template_kwargs: { enable_thinking: false } } }),
  'gemma-4-31b-thinking': local('gemma-4-31b-thinking', 'google/gemma-4-31B-it', 'vLLM (`vllm serve google/gemma-4-31B-it --reasoning-parser gemma4`); thinking on', 'https://docs.vllm.ai/en/stable/features/reasoning_outputs/', { params: { chat_template_kwargs: { enable_thinking: true } }, maxTokens: THINKING_TOKENS }),

  // Providers' OpenAI-compatible endpoints.
  // OpenAI's reasoning models refuse max_tokens (max_completion_tokens instead) and any temperature but 1.
  'gpt-5': {
    name: 'gpt-5', model: 'gpt-5', defaultBaseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', maxImages: null, systemPrompt: true,
    servedBy: "OpenAI's API (a reasoning model: max_completion_tokens, temperature 1; its reasoning is not returned, only counted)",
    params: { max_completion_tokens: THINKING_TOKENS, reasoning_effort: 'medium' }, temperature: 1, maxTokens: THINKING_TOKENS,
    source: 'https://platform.openai.com/docs/api-reference/chat/create',
  },
  'gpt-4.1': { name: 'gpt-4.1', model: 'gpt-4.1', defaultBaseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', maxImages: null, systemPrompt: true, servedBy: "OpenAI's API", source: 'https://platform.openai.com/docs/api-reference/chat/create' },
  'gemini-2.5-pro': { name: 'gemini-2.5-pro', model: 'gemini-2.5-pro', defaultBaseUrl: GEMINI, apiKeyEnv: 'GEMINI_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Google's OpenAI-compatible Gemini API (thinks by default; reasoning_effort sets how much)", maxTokens: THINKING_TOKENS, source: 'https://ai.google.dev/gemini-api/docs/openai' },
  'gemini-2.5-flash': { name: 'gemini-2.5-flash', model: 'gemini-2.5-flash', defaultBaseUrl: GEMINI, apiKeyEnv: 'GEMINI_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Google's OpenAI-compatible Gemini API (thinks by default; reasoning_effort sets how much)", maxTokens: THINKING_TOKENS, source: 'https://ai.google.dev/gemini-api/docs/openai' },
  // Anthropic's compatibility layer: temperature 0–1, one system message, images as data URLs.
  // The current documentation's own examples (ai.google.dev/gemini-api/docs/openai: model "gemini-3.5-flash";
  // platform.claude.com models overview: Claude Opus 5 and Sonnet 5, ids "claude-opus-5" and "claude-sonnet-5" in
  // the anthropic SDK's model list).
  'gemini-3.5-flash': { name: 'gemini-3.5-flash', model: 'gemini-3.5-flash', defaultBaseUrl: GEMINI, apiKeyEnv: 'GEMINI_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Google's OpenAI-compatible Gemini API (thinks by default; reasoning_effort sets how much)", maxTokens: THINKING_TOKENS, source: 'https://ai.google.dev/gemini-api/docs/openai' },
  'claude-opus-5': { name: 'claude-opus-5', model: 'claude-opus-5', defaultBaseUrl: 'https://api.anthropic.com/v1/', apiKeyEnv: 'ANTHROPIC_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Anthropic's OpenAI SDK compatibility layer (meant for testing and comparison; thinking is not returned there)", source: 'https://platform.claude.com/docs/en/about-claude/models/overview' },
  'claude-sonnet-5': { name: 'claude-sonnet-5', model: 'claude-sonnet-5', defaultBaseUrl: 'https://api.anthropic.com/v1/', apiKeyEnv: 'ANTHROPIC_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Anthropic's OpenAI SDK compatibility layer (meant for testing and comparison; thinking is not returned there)", source: 'https://platform.claude.com/docs/en/about-claude/models/overview' },
  'claude-opus-4-6': { name: 'claude-opus-4-6', model: 'claude-opus-4-6', defaultBaseUrl: 'https://api.anthropic.com/v1/', apiKeyEnv: 'ANTHROPIC_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Anthropic's OpenAI SDK compatibility layer (meant for testing and comparison; thinking is not returned there)", source: 'https://platform.claude.com/docs/en/api/openai-sdk' },
};
