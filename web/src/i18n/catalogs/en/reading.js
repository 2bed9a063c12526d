// reading.js — the page's words in English: further reading (views/reading.js). Imported by the code that
// speaks them, so they come with its chunk; importing adds them to i18n/english.js.
import { addEnglish } from '../../english.js';

export default addEnglish({
  // ---- further reading ----
  'reading.intro': 'The papers the lesson names, as plain citations (nothing here is fetched), and what each part of this page takes from them.',
  'reading.shownIn': 'On this page:',
  'reading.vaswani': 'Multi-head attention itself: Q, K and V projected into H heads of width d_head = d_model / H, scaled dot-product attention in each head, the heads concatenated and mixed by W_o. The walkthrough follows its three steps; the parameter view shows why H heads cost what one wide head costs.',
  'reading.shazeer': 'Multi-query attention (MQA): every query head reads one shared K/V head, so the KV cache holds one K and one V per token and layer. The KV chart and Lab 2 measure what it saves and what it costs.',
  'reading.ainslie': 'Grouped-query attention (GQA): G K/V heads, each serving a contiguous group of H/G query heads (repeat_interleave), and uptraining MHA checkpoints into it. The maps box each group; the configurator picks G.',
  'reading.deepseek': 'Multi-head latent attention (MLA): K and V from a cached low-rank latent of rank r plus a decoupled RoPE key, and the table of KV-cache elements per token (Table 1) that the parameter view and the KV chart use. Lab 3 sweeps r.',
  'reading.olsson': 'Induction heads, the two-head circuit behind in-context learning (A B … A → B). Lab 4 watches them form; the configurator\'s synthetic check asks a built model for the same pattern.',
});
