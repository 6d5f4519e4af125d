/**
 * Presets for the eight models of the ReXVQA paper as they are commonly served. A preset only fills in
 * configuration of the one OpenAI-compatible adapter: model id, default endpoint, key variable and known limits.
 * See docs/models.md for the table and how each model is usually put behind an OpenAI-compatible endpoint.
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
}

const VLLM = 'http://127.0.0.1:8000/v1';

/** The presets, by name. */
export const PRESETS: Record<string, ModelPreset> = {
  'medgemma-4b-it': { name: 'medgemma-4b-it', model: 'google/medgemma-4b-it', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: true, servedBy: 'vLLM (`vllm serve google/medgemma-4b-it --limit-mm-per-prompt \'{"image": 4}\'`)' },
  'qwen2.5-vl-7b': { name: 'qwen2.5-vl-7b', model: 'Qwen/Qwen2.5-VL-7B-Instruct', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: true, servedBy: 'vLLM or SGLang' },
  'qwen2-vl-7b': { name: 'qwen2-vl-7b', model: 'Qwen/Qwen2-VL-7B-Instruct', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: true, servedBy: 'vLLM or SGLang' },
  'janus-pro-7b': { name: 'janus-pro-7b', model: 'deepseek-ai/Janus-Pro-7B', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: 1, systemPrompt: true, servedBy: 'not served by stock vLLM: wrap the reference `janus` inference code in a small OpenAI-compatible HTTP server' },
  'eagle2-9b': { name: 'eagle2-9b', model: 'nvidia/Eagle2-9B', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: true, servedBy: 'vLLM with --trust-remote-code where your vLLM version supports it; otherwise an OpenAI-compatible wrapper around its Transformers code' },
  'phi-3.5-vision': { name: 'phi-3.5-vision', model: 'microsoft/Phi-3.5-vision-instruct', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: null, systemPrompt: false, servedBy: 'vLLM (`--trust-remote-code --limit-mm-per-prompt \'{"image": 4}\'`)' },
  'llava-1.5-7b': { name: 'llava-1.5-7b', model: 'llava-hf/llava-1.5-7b-hf', defaultBaseUrl: VLLM, apiKeyEnv: null, maxImages: 1, systemPrompt: false, servedBy: 'vLLM (trained on one image per prompt: only the first, frontal view is sent)' },
  'gemini-1.5-pro': { name: 'gemini-1.5-pro', model: 'gemini-1.5-pro', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/', apiKeyEnv: 'GEMINI_API_KEY', maxImages: null, systemPrompt: true, servedBy: "Google's OpenAI-compatible Gemini API (the 1.5 models are retired there: use a current Gemini model id to reproduce the setup)" },
};
