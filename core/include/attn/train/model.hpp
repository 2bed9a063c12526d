// train/model.hpp — a tiny causal transformer built from the layers of layers.hpp.
//
//   x = wte[tokens] + wpe[pos]                                     (R, D)   learned positions always,
//                                                                           also when RoPE is on
//   per layer:  x = x + attn(LN1(x))      [LN only when layerNorm]
//               x = x + mlp(LN2(x))       [only when mlp]
//   xf = LNf(x)                           [only when layerNorm]
//   logits = xf wte^T (tied) | xf w_unembed (untied)                (R, V)
//   loss = masked mean cross-entropy
// Attention semantics are those of the inference core (forward.hpp), causal.
//
// Block::Llama (Hugging Face's LlamaForCausalLM, llama_block.hpp): no learned positions, RoPE in
// every attention, RMSNorm before the attention and the MLP and at the end, a SwiGLU MLP of width
// ffn, no biases anywhere:
//   x = wte[tokens];   x = llama_block(x) per layer;   xf = RMSNorm(x) * lnf;   logits as above
//
// Block::Deepseek (Hugging Face's DeepseekV2ForCausalLM, every layer dense, deepseek_block.hpp): the
// Llama model whose attention is MLA (latent KV of rank attn.r, per-head no-RoPE width attn.dh, a
// decoupled RoPE key of width attn.dr shared by the heads, value width v_head_dim, queries straight
// from x or through a latent of rank q_lora_rank):
//   x = wte[tokens];   x = deepseek_block(x) per layer;   xf = RMSNorm(x) * lnf;   logits as above
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/spec.hpp"
#include "attn/tensor.hpp"
#include "attn/train/deepseek_block.hpp"
#include "attn/train/layers.hpp"
#include "attn/train/llama_block.hpp"
#include "attn/weights.hpp"

namespace attn::train {

// The block a model stacks: the lesson's GPT-style block (LayerNorm, learned positions, a GELU or
// ReLU MLP with biases, each part optional), Llama's or DeepSeek-V2's (above).
enum class Block { Gpt, Llama, Deepseek };

struct ModelConfig {
  Shape attn;              // resolved geometry (causal on); attn.n = max sequence length
  int64_t vocab = 0;       // V
  int64_t n_layers = 1;
  bool mlp = false, layer_norm = true, tied = false;   // Llama: mlp and layer_norm (RMSNorm) always on
  Activation activation = Activation::Gelu;
  Block block = Block::Gpt;
  int64_t ffn = 0;         // Llama, Deepseek: the SwiGLU MLP's width F (intermediate_size)
  double norm_eps = 1e-5;  // Llama, Deepseek: RMSNorm's eps (rms_norm_eps)
  int64_t v_head_dim = 0;  // Deepseek: dv (attn.variant MLA: attn.dh is qk_nope_head_dim, attn.dr qk_rope_head_dim)
  int64_t q_lora_rank = 0; // Deepseek: qr, 0 = no query compression
};

// Block::Deepseek: the MLA sizes of a configuration (attn.d, h, dh = nope, dr, r, rope_base; v_head_dim, q_lora_rank).
MlaDims mla_dims(const ModelConfig& cfg);
// Block::Llama or Block::Deepseek: RMSNorm, SwiGLU, no learned positions.
inline bool llama_like(Block b) { return b == Block::Llama || b == Block::Deepseek; }

// One trainable tensor: its value and its gradient (same shape), for the optimiser and export.
struct ParamRef {
  std::string name;
  Matrix* value;
  Matrix* grad;
  bool decay;  // AdamW decays matrices (embeddings included), not biases or LayerNorm gains
};

struct Layer {
  Matrix ln1_g, ln1_b, ln2_g, ln2_b;  // (1, D)
  Weights attn;                       // attention projections (weights.hpp layout)
  MlpParams mlp;
};

class Model {
 public:
  // Seeded initialisation (model.cpp): a model depends only on cfg and seed.
  Model(const ModelConfig& cfg, uint64_t seed);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const { return cfg_; }

  // tokens, targets, mask: (B, N) row-major, N <= cfg.attn.n. Keeps every intermediate.
  // Returns the masked mean cross-entropy (nats per token). targets/mask may be null: logits only.
  double forward(const int32_t* tokens, const int32_t* targets, const float* mask, int64_t batch, int64_t n);
  // Gradients of the last forward's loss, accumulated into the grads (call zero_grad first).
  void backward();
  void zero_grad();

  const Matrix& logits() const { return logits_; }   // (R, V) of the last forward
  const Matrix& probs() const { return probs_; }     // (R, V) softmax of the logits (after a loss forward)
  // Attention weights of the last forward: layer l, (B, H, N, N).
  const std::vector<float>& attention_probs(int64_t layer) const {
    if (cfg_.block == Block::Deepseek) return acts_[layer].deepseek.attn.probs;
    return cfg_.block == Block::Llama ? acts_[layer].llama.attn.probs : acts_[layer].attn.probs;
  }
  // What layer l's attention read in the last forward: (R, D), LN1(x) with layerNorm, else x
  // (Llama: its RMSNorm).
  const Matrix& attention_input(int64_t layer) const {
    if (cfg_.block == Block::Llama) return acts_[layer].llama.h;
    if (cfg_.block == Block::Deepseek) return acts_[layer].deepseek.h;
    return cfg_.layer_norm ? acts_[layer].ln1 : acts_[layer].x_in;
  }
  // Layer l's attention projections (weights.hpp layout: what attn::forward takes). Not for
  // Block::Deepseek (its MLA has norms and RoPE pairs the inference core's MLA has not): empty there.
  const Weights& attention_weights(int64_t layer) const {
    if (cfg_.block == Block::Deepseek) return no_weights_;
    return cfg_.block == Block::Llama ? llama_[layer].attn : layers_[layer].attn;
  }
  // Llama: layer l's weights (every matrix in the trainer's (in, out) layout), and the final norm's gain.
  const LlamaLayer& llama_layer(int64_t layer) const { return llama_[layer]; }
  // Deepseek: layer l's weights (the trainer's (in, out) layout).
  const DeepseekLayer& deepseek_layer(int64_t layer) const { return deepseek_[layer]; }
  // The GPT-style block: layer l's weights, the learned positions and the final LayerNorm's bias.
  const Layer& gpt_layer(int64_t layer) const { return layers_[std::size_t(layer)]; }
  const Matrix& position_embedding() const { return wpe; }   // (N, D)
  const Matrix& final_norm_bias() const { return lnf_b; }    // (1, D)
  const Matrix& token_embedding() const { return wte; }      // (V, D)
  const Matrix& final_norm() const { return lnf_g; }         // (1, D)
  const Matrix& unembedding() const { return w_unembed; }    // (D, V); empty when tied

  std::vector<ParamRef>& params() { return params_; }
  int64_t param_count() const;

 private:
  struct LayerActs {
    Matrix x_in;                 // (R, D) residual stream entering the layer
    Matrix ln1, ln1_mean, ln1_rstd;
    AttentionCache attn;
    Matrix x_mid;                // (R, D) after the attention residual
    Matrix ln2, ln2_mean, ln2_rstd;
    MlpCache mlp;
    LlamaBlockCache llama;       // Block::Llama: everything the block keeps
    DeepseekBlockCache deepseek; // Block::Deepseek: everything the block keeps
  };
  void init_llama(uint64_t seed);
  void init_deepseek(uint64_t seed);
  // From x_final (and lnf when normed): the logits, then the loss when targets are given.
  double head_forward(const int32_t* targets, const float* mask);
  // Block::Llama: the blocks and the final RMSNorm (into x_final, lnf); their backward from dlnf.
  void forward_llama(const Matrix& x, const Shape& s);
  void backward_llama(const Matrix& dlnf, const Shape& s);
  // Block::Deepseek: the same with deepseek_block.
  void forward_deepseek(const Matrix& x);
  void backward_deepseek(const Matrix& dlnf);
  // Both: the final RMSNorm (x_final -> lnf) and its backward into dx (R, D).
  void final_rmsnorm_forward();
  Matrix final_rmsnorm_backward(const Matrix& dlnf);
  ModelConfig cfg_;
  Matrix wte, wpe, lnf_g, lnf_b, w_unembed;                 // (V, D) (N, D) (1, D) (1, D) (D, V)
  Matrix d_wte, d_wpe, d_lnf_g, d_lnf_b, d_w_unembed;
  std::vector<Layer> layers_, grads_;
  std::vector<LlamaLayer> llama_, llama_grads_;              // Block::Llama
  std::vector<DeepseekLayer> deepseek_, deepseek_grads_;     // Block::Deepseek
  Weights no_weights_;                                       // attention_weights of Block::Deepseek
  std::vector<ParamRef> params_;

  // the last forward
  int64_t batch_ = 0, n_ = 0;
  std::vector<int32_t> tokens_, targets_;
  std::vector<float> mask_;
  std::vector<LayerActs> acts_;
  Matrix x_final, lnf, lnf_mean, lnf_rstd, logits_, probs_;
};

// The attention Shape of a model over n tokens (for attn::forward comparisons): causal, no weights.
Shape layer_shape(const ModelConfig& cfg, int64_t n);

}  // namespace attn::train
