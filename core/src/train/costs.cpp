// train/costs.cpp — what a trainer needs, from its configuration alone (see train/costs.hpp).
// Each count follows the loops of model.cpp and layers.cpp (noted beside it); the rates are cost.cpp's.
#include "attn/train/costs.hpp"

#include <algorithm>
#include <cmath>

#include "attn/train/probes.hpp"
#include "attn/weights.hpp"

namespace attn::train {

namespace {

constexpr double kEvalSequences = 256;  // trainer.cpp

// Block::Deepseek's MLA (deepseek_layers.hpp): q (or q_a, its norm, q_b), kv_a, its norm, kv_b, o.
double mla_floats(const ModelConfig& c) {
  const MlaDims m = mla_dims(c);
  const double D = double(m.d), H = double(m.h), dqk = double(m.dqk()), r = double(m.r), dr = double(m.dr);
  const double dv = double(m.dv), qr = double(m.qr);
  const double q = m.qr == 0 ? D * H * dqk : D * qr + qr + qr * H * dqk;
  return q + D * (r + dr) + r + r * H * (double(m.nope) + dv) + H * dv * D;
}

double attention_floats(const ModelConfig& c) {
  if (c.block == Block::Deepseek) return mla_floats(c);
  double total = 0;
  for (const auto& slot : weight_slots(c.attn)) total += double(slot.rows) * double(slot.cols);
  return total;
}

// The MLP's matrices: GPT-style w1 (D, 4D) and w2 (4D, D); Llama's w_gate, w_up (D, F) and w_down (F, D).
double mlp_floats(const ModelConfig& c) {
  const double D = double(c.attn.d);
  if (llama_like(c.block)) return 3.0 * D * double(c.ffn);
  return c.mlp ? 8.0 * D * D : 0.0;
}

// linear_backward (layers.cpp): dx += dout w^T, dw += x^T dout (A transposed first).
Work linear_backward_work(double rows, double d_in, double d_out) {
  Work w = gemm_work(rows, d_out, d_in) + gemm_work(d_in, rows, d_out);
  w.bytes += 8.0 * rows * d_in;
  return w;
}

// Block::Deepseek: one layer's MLA over `seqs` sequences of n tokens (mla_forward, plain loops for
// the scores and p v).
Work mla_forward_work(const ModelConfig& c, double seqs, int64_t n) {
  const MlaDims m = mla_dims(c);
  const double R = seqs * double(n), D = double(m.d), H = double(m.h), dqk = double(m.dqk()), r = double(m.r);
  const double dr = double(m.dr), dv = double(m.dv), qr = double(m.qr), kvw = double(m.nope) + dv;
  const double pairs = seqs * H * double(n) * double(n + 1) / 2.0;  // (query, key <= query) per head
  Work w;
  w += m.qr == 0 ? gemm_work(R, D, H * dqk) : gemm_work(R, D, qr) + gemm_work(R, qr, H * dqk);  // q
  w += gemm_work(R, D, r + dr) + gemm_work(R, r, H * kvw);          // [c | k_pe], [k_nope | v]
  w.loops += 4.0 * R * (r + qr);                                    // the latent RMSNorms
  w.elementwise += R * (H + 1.0) * dr + pairs;                      // RoPE's angles, the softmax's exp
  w.loops += pairs * 2.0 * (dqk + dv);                              // q.k, p v
  w.bytes += 4.0 * seqs * H * double(n) * double(n) + 8.0 * R * (H * dv + r + dr);  // probs, o, copies
  w += gemm_work(R, H * dv, D);                                     // out = o wo
  return w;
}

// Per layer, the attention block over `seqs` sequences of n tokens (attention_forward).
Work attention_forward_work(const ModelConfig& c, double seqs, int64_t n) {
  if (c.block == Block::Deepseek) return mla_forward_work(c, seqs, n);
  const Shape& s = c.attn;
  const double R = seqs * double(n), D = double(s.d), H = double(s.h), G = double(s.g), dh = double(s.dh);
  const bool mla = s.variant == Variant::MLA;
  Work w;
  if (mla) {
    const double r = double(s.r), dr = double(s.dr);
    w += gemm_work(R, D, r) + gemm_work(R, D, H * dh) + gemm_work(R, r, H * dh) * 2.0;  // c, q, k, v
    if (dr > 0) w += gemm_work(R, D, H * dr) + gemm_work(R, D, dr);
    w.elementwise += R * (H + 1.0) * dr;
    w.bytes += 16.0 * R * H * (dh + dr);  // per-head [q_h | qr_h], [k_h | kr]
  } else {
    w += gemm_work(R, D, H * dh) + gemm_work(R, D, G * dh) * 2.0;
    if (s.rope) w.elementwise += R * (H + G) * dh;
  }
  w += kernel_work(s.h, mla ? s.h : s.g, n, n, s.dh + s.dr, s.dh, true, 0) * seqs;
  w.bytes += 4.0 * seqs * H * double(n) * double(n);  // the probabilities kept (zero-filled first)
  w += gemm_work(R, H * dh, D);                       // out = o wo
  return w;
}

// The model's forward pass (Model::forward) over `seqs` sequences of n tokens, in chunks of `chunk`
// sequences (evaluation and the probes run the held-out set in chunks of batchSize).
Work model_forward_work(const ModelConfig& c, double seqs, int64_t n, double chunk) {
  const double R = seqs * double(n), D = double(c.attn.d), V = double(c.vocab), L = double(c.n_layers);
  const double chunks = std::max(1.0, std::ceil(seqs / chunk));
  Work w;
  w.bytes += 8.0 * R * D;                 // embeddings and positions
  w.loops += R * D;
  Work layer = attention_forward_work(c, seqs, n);
  layer.bytes += 24.0 * R * D;            // the residual stream: kept, added to
  if (c.layer_norm) layer.loops += 8.0 * R * D * (c.mlp ? 2.0 : 1.0);
  if (llama_like(c.block)) {              // SwiGLU (llama_layers.cpp): gate, up, down; silu's exp
    const double F = double(c.ffn);
    layer += gemm_work(R, D, F) * 2.0 + gemm_work(R, F, D);
    layer.elementwise += R * F;
    layer.bytes += 36.0 * R * F;          // g, u, a kept
  } else if (c.mlp) {
    layer += gemm_work(R, D, 4 * D) + gemm_work(R, 4 * D, D);
    layer.elementwise += 4.0 * R * D;     // GELU's tanh
    layer.loops += 5.0 * R * D;           // the biases
    layer.bytes += 36.0 * R * D;          // h, a, t kept
  }
  w += layer * L;
  if (c.layer_norm) w.loops += 8.0 * R * D;
  w += gemm_work(R, D, V);                // logits
  w.elementwise += R * V;                 // the cross-entropy's softmax
  w.loops += 4.0 * R * V;
  // Every chunk packs every matrix again (gemm_work counts one packing).
  w.bytes += (chunks - 1.0) * 12.0 * (L * (attention_floats(c) + mlp_floats(c)) + D * V);
  return w;
}

// Block::Deepseek: one layer's MLA backward (mla_backward) over `batch` sequences of n tokens.
Work mla_backward_work(const ModelConfig& c, double batch, int64_t n) {
  const MlaDims m = mla_dims(c);
  const double R = batch * double(n), D = double(m.d), H = double(m.h), dqk = double(m.dqk()), r = double(m.r);
  const double dr = double(m.dr), dv = double(m.dv), qr = double(m.qr), kvw = double(m.nope) + dv;
  const double pairs = batch * H * double(n) * double(n + 1) / 2.0;
  Work w = linear_backward_work(R, H * dv, D);                      // out = o wo
  w.loops += pairs * (4.0 * dv + 4.0 * dqk);                        // dp, dv; dq, dk_nope, dkpe
  w.bytes += 4.0 * R * (H * dv + H * dqk + H * kvw + dr) * 3.0;     // d_o, dq, dkv, dkpe zeroed and read
  w += linear_backward_work(R, r, H * kvw) + linear_backward_work(R, D, r + dr);
  w += m.qr == 0 ? linear_backward_work(R, D, H * dqk) : linear_backward_work(R, qr, H * dqk) + linear_backward_work(R, D, qr);
  w.loops += 14.0 * R * (r + qr);                                   // the latent RMSNorms
  w.elementwise += R * (H + 1.0) * dr;                              // RoPE's angles
  return w;
}

// Per layer, the attention block's backward (attention_backward) over `batch` sequences of n tokens.
Work attention_backward_work(const ModelConfig& c, double batch, int64_t n) {
  if (c.block == Block::Deepseek) return mla_backward_work(c, batch, n);
  const Shape& s = c.attn;
  const double R = batch * double(n), D = double(s.d), H = double(s.h), G = double(s.g), dh = double(s.dh);
  const double dqk = double(s.dh + s.dr), gk = s.variant == Variant::MLA ? H : G;
  Work layer = linear_backward_work(R, H * dh, D);  // out = o wo
  // The attention backward's loops (per sequence, head, query i, key j <= i): dp = do . v, dv += p do,
  // dq += ds k, dk += ds q.
  layer.loops += batch * H * double(n) * double(n + 1) / 2.0 * (4.0 * dh + 4.0 * dqk);
  layer.bytes += 4.0 * R * (H * dqk + gk * dqk + gk * dh) * 3.0;  // dq, dk, dv zeroed and read
  if (s.variant == Variant::MLA) {
    const double r = double(s.r), dr = double(s.dr);
    layer += linear_backward_work(R, D, H * dh) + linear_backward_work(R, r, H * dh) * 2.0 +
             linear_backward_work(R, D, r);
    if (dr > 0) layer += linear_backward_work(R, D, H * dr) + linear_backward_work(R, D, dr);
    layer.elementwise += R * (H + 1.0) * dr;
  } else {
    layer += linear_backward_work(R, D, H * dh) + linear_backward_work(R, D, G * dh) * 2.0;
    if (s.rope) layer.elementwise += R * (H + G) * dh;
  }
  return layer;
}

// Model::backward over one batch of `batch` sequences of n tokens.
Work model_backward_work(const ModelConfig& c, double batch, int64_t n) {
  const Shape& s = c.attn;
  const double R = batch * double(n), D = double(s.d), V = double(c.vocab), L = double(c.n_layers);
  Work w;
  w.loops += 2.0 * R * V;                           // dlogits
  w += c.tied ? gemm_work(R, V, D) + gemm_work(V, R, D) : linear_backward_work(R, D, V);
  if (c.layer_norm) w.loops += 14.0 * R * D;
  Work layer = attention_backward_work(c, batch, n);
  if (c.layer_norm) layer.loops += 14.0 * R * D * (c.mlp ? 2.0 : 1.0);
  if (llama_like(c.block)) {
    const double F = double(c.ffn);
    layer += linear_backward_work(R, F, D) + linear_backward_work(R, D, F) * 2.0;
    layer.elementwise += R * F;
    layer.bytes += 48.0 * R * F;
  } else if (c.mlp) {
    layer += linear_backward_work(R, 4 * D, D) + linear_backward_work(R, D, 4 * D);
    layer.elementwise += 4.0 * R * D;
    layer.bytes += 40.0 * R * D;
  }
  layer.bytes += 24.0 * R * D;
  w += layer * L;
  w.loops += 2.0 * R * D;                           // embeddings and positions
  return w;
}

}  // namespace

double model_param_floats(const ModelConfig& c) {
  const double D = double(c.attn.d), V = double(c.vocab), N = double(c.attn.n);
  if (llama_like(c.block)) {  // model.cpp init_llama / init_deepseek: wte, per layer 2 norms + attention + MLP, lnf, unembed
    return V * D + double(c.n_layers) * (2.0 * D + attention_floats(c) + mlp_floats(c)) + D + (c.tied ? 0.0 : D * V);
  }
  double layer = attention_floats(c);
  if (c.layer_norm) layer += 2.0 * D;                          // ln1
  if (c.mlp) layer += 8.0 * D * D + 5.0 * D + (c.layer_norm ? 2.0 * D : 0.0);  // w1, b1, w2, b2, ln2
  return V * D + N * D + double(c.n_layers) * layer + (c.layer_norm ? 2.0 * D : 0.0) + (c.tied ? 0.0 : D * V);
}

double step_activation_bytes(const ModelConfig& c, int64_t batch) {
  const double n = double(c.attn.n), rows = double(batch) * n, d = double(c.attn.d), h = double(c.attn.h);
  const double mlp = llama_like(c.block) ? 8.0 * double(c.ffn) + 4.0 * d : c.mlp ? 32.0 * d : 0.0;
  // Deepseek: q, kv, o per head and the latents (deepseek_layers.hpp's MlaCache), their gradients
  const double attn = c.block == Block::Deepseek
                          ? 2.0 * h * double(2 * c.attn.d_qk() + 2 * c.v_head_dim) + 6.0 * double(c.attn.r + c.q_lora_rank) + 4.0 * double(c.attn.dr)
                          : 6.0 * h * double(c.attn.d_qk() + c.attn.dh);
  const double per_layer = rows * (8.0 * d + attn + mlp) + 2.0 * double(batch) * h * n * n;
  return 4.0 * (double(c.n_layers) * per_layer + 4.0 * rows * double(c.vocab));
}

double trainer_heap_bytes(const ModelConfig& c, int64_t batch) {
  return 16.0 * model_param_floats(c) + step_activation_bytes(c, batch);
}

double model_file_bytes(const ModelConfig& c, double text_bytes) {
  // Tensors: a parameter and its two moments. Header: the config (the text escaped at worst 6 bytes a
  // byte), ~150 bytes a tensor entry.
  const double attn_tensors = c.block == Block::Deepseek ? 8.0 : double(weight_slots(c.attn).size());
  const double tensors = 3.0 * (2.0 + double(c.n_layers) * (2.0 + attn_tensors + 6.0) + 3.0);
  return 12.0 * model_param_floats(c) + 2048.0 + 6.0 * text_bytes + 150.0 * tensors;
}

TrainerCosts trainer_costs(const ModelConfig& c, int64_t batch, double text_bytes) {
  const int64_t n = c.attn.n;
  const double P = model_param_floats(c), b = double(batch);
  const double file = model_file_bytes(c, text_bytes);
  TrainerCosts t;

  t.create.call = "creating this trainer";
  Work init;
  init.seeded = P;              // every matrix drawn from the seed (model.cpp)
  init.bytes = 16.0 * P;        // gradients and moments zeroed
  init.loops = 40.0 * kEvalSequences * double(n);  // the held-out set
  t.create.add("drawing and zeroing the parameters", "model.dModel", init);
  if (text_bytes > 0) {
    Work text;
    text.checksum = 25.0 * text_bytes;  // read out of the JS string, decoded and tokenised (calibrated)
    t.create.add("reading and tokenising the text", "text", text);
  }

  t.step.call = "one training step";
  t.step.add("the forward pass", "model.dModel", model_forward_work(c, b, n, b));
  t.step.add("the backward pass", "model.dModel", model_backward_work(c, b, n));
  Work adam;
  adam.elementwise = P;         // AdamW: a sqrt and two divisions a parameter (adam.cpp)
  adam.bytes = 48.0 * P;        // zero_grad, the finiteness scan, AdamW's reads and writes
  t.step.add("AdamW and the gradient checks", "model.dModel", adam);

  t.evaluate.call = "evaluate()";
  Work eval = model_forward_work(c, kEvalSequences, n, b);
  eval.loops += kEvalSequences * double(n) * double(c.vocab);  // argmax
  t.evaluate.add("256 held-out sequences forward", "seqLen", eval);

  t.head_scores.call = "headScores()";
  const double probes = double(kScoreSequences) * (c.vocab >= 4 ? 2.0 : 1.0);
  Work scores = model_forward_work(c, probes, n, b);
  scores.bytes += 8.0 * probes * double(c.n_layers) * double(c.attn.h) * double(n) * double(n);  // maps scanned
  t.head_scores.add("the probe sequences forward", "seqLen", scores);

  t.attention.call = "attention(tokens)";
  Work maps = model_forward_work(c, 1, n, 1);
  maps.bytes += 12.0 * double(c.n_layers) * double(c.attn.h) * double(n) * double(n);
  t.attention.add("one sequence forward", "seqLen", maps);

  t.export_model.call = "exportModel()";
  Work out;
  out.bytes = 3.0 * file;       // tensors into the file, the file out to JS
  out.checksum = file;          // the CRC-32
  t.export_model.add("writing the model file", "model.dModel", out);

  t.load_model.call = "loading this trainer's export";
  Work in = init;               // the trainer built, then overwritten
  in.bytes += 4.0 * file;       // the file into the heap, its tensors copied and checked
  in.checksum += file + 6.0 * text_bytes;  // the CRC-32 and the JSON header
  t.load_model.add("reading the model file", "model.dModel", in);
  return t;
}

}  // namespace attn::train
