// hub-models.js — the short list of public, ungated Hub models that the page reads and that fit,
// offered beside the model-id field (parts/hub-open.js). Each row is what the model's config.json and
// file listing say on the Hub (architecture, query and K/V heads, the size of its .safetensors weights);
// the page reads the listing again before a download and shows the real size then.
export const HUB_MODELS = [
  { id: 'HuggingFaceTB/SmolLM2-135M', modelType: 'llama', nHeads: 9, nKvHeads: 3, variant: 'gqa', bytes: 269_060_552 },
  { id: 'HuggingFaceTB/SmolLM2-360M', modelType: 'llama', nHeads: 15, nKvHeads: 5, variant: 'gqa', bytes: 723_674_912 },
  { id: 'Qwen/Qwen2.5-0.5B', modelType: 'qwen2', nHeads: 14, nKvHeads: 2, variant: 'gqa', bytes: 988_097_824 },
  { id: 'Qwen/Qwen3-0.6B', modelType: 'qwen3', nHeads: 16, nKvHeads: 8, variant: 'gqa', bytes: 1_503_300_328 },
  { id: 'openai-community/gpt2', modelType: 'gpt2', nHeads: 12, nKvHeads: 12, variant: 'mha', bytes: 548_105_171 },
];
