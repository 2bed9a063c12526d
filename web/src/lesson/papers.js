// papers.js — the lesson's further reading: five plain citations (bibliographic data, written as
// published, not translated) and the views of this page that take something from each. What each
// gives a view is the catalog's `reading.<id>` (i18n/catalogs/). No link leaves the page.
export const PAPERS = [
  { id: 'vaswani', cite: 'Vaswani, A., Shazeer, N., Parmar, N., Uszkoreit, J., Jones, L., Gomez, A. N., Kaiser, Ł., Polosukhin, I. (2017). Attention Is All You Need. NeurIPS 2017, §3.2.2 "Multi-Head Attention". arXiv:1706.03762.',
    views: ['walkthrough', 'heatmap', 'params', 'heads-table', 'pytorch'] },
  { id: 'shazeer', cite: 'Shazeer, N. (2019). Fast Transformer Decoding: One Write-Head is All You Need. arXiv:1911.02150.',
    views: ['kv-chart', 'decode', 'lab-mqa'] },
  { id: 'ainslie', cite: 'Ainslie, J., Lee-Thorp, J., de Jong, M., Zemlyanskiy, Y., Lebrón, F., Sanghai, S. (2023). GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints. EMNLP 2023. arXiv:2305.13245.',
    views: ['heatmap', 'compare', 'configurator'] },
  { id: 'deepseek', cite: 'DeepSeek-AI (2024). DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model. arXiv:2405.04434.',
    views: ['params', 'kv-chart', 'lab-rank'] },
  { id: 'olsson', cite: 'Olsson, C., Elhage, N., Nanda, N., et al. (2022). In-context Learning and Induction Heads. Transformer Circuits Thread. arXiv:2209.11895.',
    views: ['lab-induction', 'configurator'] },
];
