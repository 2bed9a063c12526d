// train/model.cpp — the tiny transformer (see model.hpp).
#include "attn/train/model.hpp"

#include <cmath>

#include "attn/errors.hpp"

namespace attn::train {

namespace {

Matrix filled(int64_t rows, int64_t cols, float v) {
  Matrix m = uninitialised(rows, cols);
  m.fill(v);
  return m;
}

Matrix zeros_like(const Matrix& m) { return zeros(int64_t(m.shape(0)), int64_t(m.shape(1))); }

// Matrix ids of the seeded initialisation beyond the attention ones (1-9 in weights.hpp).
enum : int { kIdWte = 20, kIdWpe = 21, kIdUnembed = 22, kIdW1 = 23, kIdW2 = 24, kIdGate = 25, kIdUp = 26, kIdDown = 27,
              kIdMlaQ = 28, kIdMlaQa = 29, kIdMlaQb = 30, kIdMlaKva = 31, kIdMlaKvb = 32, kIdMlaO = 33 };

// out = LayerNorm(x) with gain g and bias b (1, D), keeping mean and rstd (1, R) for the backward;
// returns out's data. x: (R, D).
const float* layernorm_keep(Matrix& out, Matrix& mean, Matrix& rstd, const Matrix& x, const Matrix& g, const Matrix& b) {
  const int64_t rows = int64_t(x.shape(0)), d = int64_t(x.shape(1));
  out = uninitialised(rows, d);
  mean = uninitialised(1, rows);
  rstd = uninitialised(1, rows);
  layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), g.data(), b.data(), rows, d);
  return out.data();
}

}  // namespace

MlaDims mla_dims(const ModelConfig& cfg) {
  MlaDims m;
  m.d = cfg.attn.d;
  m.h = cfg.attn.h;
  m.nope = cfg.attn.dh;
  m.dr = cfg.attn.dr;
  m.dv = cfg.v_head_dim;
  m.r = cfg.attn.r;
  m.qr = cfg.q_lora_rank;
  m.base = cfg.attn.rope_base;
  return m;
}

Shape layer_shape(const ModelConfig& cfg, int64_t n) {
  Shape s = cfg.attn;
  s.n = n;
  s.causal = true;
  s.return_weights = false;
  return s;
}

Model::Model(const ModelConfig& cfg, uint64_t seed) : cfg_(cfg) {
  if (cfg.block == Block::Llama) {
    init_llama(seed);
    return;
  }
  if (cfg.block == Block::Deepseek) {
    init_deepseek(seed);
    return;
  }
  const int64_t d = cfg.attn.d, v = cfg.vocab, n = cfg.attn.n, f = 4 * d;
  // Embeddings ~ U(-0.1, 0.1) (std 0.058); every (d_in, d_out) matrix ~ U(+-1/sqrt(d_in)) as in
  // weights.hpp; the output projections (wo, w2) scaled by 1/sqrt(2 nLayers) as in GPT-2.
  wte = uninitialised(v, d);
  fill_uniform(wte, seed, kIdWte, 0.1f);
  wpe = uninitialised(n, d);
  fill_uniform(wpe, seed, kIdWpe, 0.1f);
  lnf_g = filled(1, d, 1.0f);
  lnf_b = zeros(1, d);
  if (!cfg.tied) {
    w_unembed = uninitialised(d, v);
    fill_uniform(w_unembed, seed, kIdUnembed, float(1.0 / std::sqrt(double(d))));
  }
  const float out_scale = float(1.0 / std::sqrt(2.0 * double(cfg.n_layers)));
  layers_.resize(std::size_t(cfg.n_layers));
  for (int64_t l = 0; l < cfg.n_layers; ++l) {
    Layer& L = layers_[l];
    const uint64_t layer_seed = seed * 1000003ull + uint64_t(l) + 1;
    L.ln1_g = filled(1, d, 1.0f);
    L.ln1_b = zeros(1, d);
    L.ln2_g = filled(1, d, 1.0f);
    L.ln2_b = zeros(1, d);
    L.attn = init_weights(cfg.attn, layer_seed);
    L.attn.wo *= out_scale;
    if (cfg.mlp) {
      L.mlp.w1 = uninitialised(d, f);
      fill_uniform(L.mlp.w1, layer_seed, kIdW1, float(1.0 / std::sqrt(double(d))));
      L.mlp.b1 = zeros(1, f);
      L.mlp.w2 = uninitialised(f, d);
      fill_uniform(L.mlp.w2, layer_seed, kIdW2, out_scale * float(1.0 / std::sqrt(double(f))));
      L.mlp.b2 = zeros(1, d);
    }
  }
  // Gradients: same shapes, zero.
  d_wte = zeros_like(wte);
  d_wpe = zeros_like(wpe);
  d_lnf_g = zeros_like(lnf_g);
  d_lnf_b = zeros_like(lnf_b);
  if (!cfg.tied) d_w_unembed = zeros_like(w_unembed);
  grads_.resize(layers_.size());
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    Layer& G = grads_[l];
    G.ln1_g = zeros_like(L.ln1_g);
    G.ln1_b = zeros_like(L.ln1_b);
    G.ln2_g = zeros_like(L.ln2_g);
    G.ln2_b = zeros_like(L.ln2_b);
    for (const auto& slot : weight_slots(cfg.attn)) G.attn.*(slot.member) = zeros(slot.rows, slot.cols);
    if (cfg.mlp) {
      G.mlp.w1 = zeros_like(L.mlp.w1);
      G.mlp.b1 = zeros_like(L.mlp.b1);
      G.mlp.w2 = zeros_like(L.mlp.w2);
      G.mlp.b2 = zeros_like(L.mlp.b2);
    }
  }
  // The parameter table (fixed order: export, optimiser and gradient checks walk it).
  params_.push_back({"wte", &wte, &d_wte, true});
  params_.push_back({"wpe", &wpe, &d_wpe, true});
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    Layer& L = layers_[l];
    Layer& G = grads_[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    if (cfg.layer_norm) {
      params_.push_back({p + "ln1.gamma", &L.ln1_g, &G.ln1_g, false});
      params_.push_back({p + "ln1.beta", &L.ln1_b, &G.ln1_b, false});
    }
    for (const auto& slot : weight_slots(cfg.attn)) {
      params_.push_back({p + "attn." + slot.name, &(L.attn.*(slot.member)), &(G.attn.*(slot.member)), true});
    }
    if (cfg.mlp) {
      if (cfg.layer_norm) {
        params_.push_back({p + "ln2.gamma", &L.ln2_g, &G.ln2_g, false});
        params_.push_back({p + "ln2.beta", &L.ln2_b, &G.ln2_b, false});
      }
      params_.push_back({p + "mlp.w1", &L.mlp.w1, &G.mlp.w1, true});
      params_.push_back({p + "mlp.b1", &L.mlp.b1, &G.mlp.b1, false});
      params_.push_back({p + "mlp.w2", &L.mlp.w2, &G.mlp.w2, true});
      params_.push_back({p + "mlp.b2", &L.mlp.b2, &G.mlp.b2, false});
    }
  }
  if (cfg.layer_norm) {
    params_.push_back({"lnf.gamma", &lnf_g, &d_lnf_g, false});
    params_.push_back({"lnf.beta", &lnf_b, &d_lnf_b, false});
  }
  if (!cfg.tied) params_.push_back({"unembed", &w_unembed, &d_w_unembed, true});
}

// The Llama model: the same draws as the GPT-style one (embeddings U(+-0.1), matrices U(+-1/sqrt(d_in)),
// the output projections wo and w_down scaled by 1/sqrt(2 nLayers)); RMSNorm gains 1; no positions,
// no biases. Parameter names follow the GPT-style model's (ln1, ln2, lnf: the RMSNorm gains).
void Model::init_llama(uint64_t seed) {
  cfg_.mlp = cfg_.layer_norm = true;  // always there: RMSNorm before every part, a SwiGLU MLP
  const ModelConfig& cfg = cfg_;
  const int64_t d = cfg.attn.d, v = cfg.vocab, f = cfg.ffn;
  wte = uninitialised(v, d);
  fill_uniform(wte, seed, kIdWte, 0.1f);
  lnf_g = filled(1, d, 1.0f);
  if (!cfg.tied) {
    w_unembed = uninitialised(d, v);
    fill_uniform(w_unembed, seed, kIdUnembed, float(1.0 / std::sqrt(double(d))));
  }
  const float out_scale = float(1.0 / std::sqrt(2.0 * double(cfg.n_layers)));
  llama_.resize(std::size_t(cfg.n_layers));
  llama_grads_.resize(llama_.size());
  for (int64_t l = 0; l < cfg.n_layers; ++l) {
    LlamaLayer& L = llama_[std::size_t(l)];
    const uint64_t layer_seed = seed * 1000003ull + uint64_t(l) + 1;
    L.attn_norm = filled(1, d, 1.0f);
    L.mlp_norm = filled(1, d, 1.0f);
    L.attn = init_weights(cfg.attn, layer_seed);
    L.attn.wo *= out_scale;
    L.mlp.w_gate = uninitialised(d, f);
    fill_uniform(L.mlp.w_gate, layer_seed, kIdGate, float(1.0 / std::sqrt(double(d))));
    L.mlp.w_up = uninitialised(d, f);
    fill_uniform(L.mlp.w_up, layer_seed, kIdUp, float(1.0 / std::sqrt(double(d))));
    L.mlp.w_down = uninitialised(f, d);
    fill_uniform(L.mlp.w_down, layer_seed, kIdDown, out_scale * float(1.0 / std::sqrt(double(f))));
    LlamaLayer& G = llama_grads_[std::size_t(l)];
    G.attn_norm = zeros_like(L.attn_norm);
    G.mlp_norm = zeros_like(L.mlp_norm);
    for (const auto& slot : weight_slots(cfg.attn)) G.attn.*(slot.member) = zeros(slot.rows, slot.cols);
    G.mlp.w_gate = zeros_like(L.mlp.w_gate);
    G.mlp.w_up = zeros_like(L.mlp.w_up);
    G.mlp.w_down = zeros_like(L.mlp.w_down);
  }
  d_wte = zeros_like(wte);
  d_lnf_g = zeros_like(lnf_g);
  if (!cfg.tied) d_w_unembed = zeros_like(w_unembed);
  params_.push_back({"wte", &wte, &d_wte, true});
  for (std::size_t l = 0; l < llama_.size(); ++l) {
    LlamaLayer& L = llama_[l];
    LlamaLayer& G = llama_grads_[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    params_.push_back({p + "ln1.gamma", &L.attn_norm, &G.attn_norm, false});
    for (const auto& slot : weight_slots(cfg.attn)) {
      params_.push_back({p + "attn." + slot.name, &(L.attn.*(slot.member)), &(G.attn.*(slot.member)), true});
    }
    params_.push_back({p + "ln2.gamma", &L.mlp_norm, &G.mlp_norm, false});
    params_.push_back({p + "mlp.w_gate", &L.mlp.w_gate, &G.mlp.w_gate, true});
    params_.push_back({p + "mlp.w_up", &L.mlp.w_up, &G.mlp.w_up, true});
    params_.push_back({p + "mlp.w_down", &L.mlp.w_down, &G.mlp.w_down, true});
  }
  params_.push_back({"lnf.gamma", &lnf_g, &d_lnf_g, false});
  if (!cfg.tied) params_.push_back({"unembed", &w_unembed, &d_w_unembed, true});
}

// The DeepSeek model: the Llama model's draws for the embeddings, norms and MLP; the MLA matrices
// U(+-1/sqrt(d_in)) (o_proj scaled by 1/sqrt(2 nLayers) as wo); the latent norms' gains 1. Parameter
// names: ln1, ln2, lnf as Llama's; attn.wq | attn.wq_a, attn.q_a_norm, attn.wq_b; attn.wkv_a,
// attn.kv_a_norm, attn.wkv_b, attn.wo.
void Model::init_deepseek(uint64_t seed) {
  cfg_.mlp = cfg_.layer_norm = true;
  const ModelConfig& cfg = cfg_;
  const MlaDims m = mla_dims(cfg);
  const int64_t d = cfg.attn.d, v = cfg.vocab, f = cfg.ffn, dqk = m.dqk();
  auto drawn = [](int64_t rows, int64_t cols, uint64_t s, int id, float scale) {
    Matrix w = uninitialised(rows, cols);
    fill_uniform(w, s, id, scale * float(1.0 / std::sqrt(double(rows))));
    return w;
  };
  wte = uninitialised(v, d);
  fill_uniform(wte, seed, kIdWte, 0.1f);
  lnf_g = filled(1, d, 1.0f);
  if (!cfg.tied) w_unembed = drawn(d, v, seed, kIdUnembed, 1.0f);
  const float out_scale = float(1.0 / std::sqrt(2.0 * double(cfg.n_layers)));
  deepseek_.resize(std::size_t(cfg.n_layers));
  deepseek_grads_.resize(deepseek_.size());
  for (int64_t l = 0; l < cfg.n_layers; ++l) {
    DeepseekLayer& L = deepseek_[std::size_t(l)];
    const uint64_t ls = seed * 1000003ull + uint64_t(l) + 1;
    L.attn_norm = filled(1, d, 1.0f);
    L.mlp_norm = filled(1, d, 1.0f);
    if (m.qr == 0) {
      L.attn.wq = drawn(d, m.h * dqk, ls, kIdMlaQ, 1.0f);               // (D, H*dqk)
    } else {
      L.attn.wq_a = drawn(d, m.qr, ls, kIdMlaQa, 1.0f);                 // (D, qr)
      L.attn.q_a_norm = filled(1, m.qr, 1.0f);                          // (1, qr)
      L.attn.wq_b = drawn(m.qr, m.h * dqk, ls, kIdMlaQb, 1.0f);         // (qr, H*dqk)
    }
    L.attn.wkv_a = drawn(d, m.r + m.dr, ls, kIdMlaKva, 1.0f);           // (D, r + dr)
    L.attn.kv_a_norm = filled(1, m.r, 1.0f);                            // (1, r)
    L.attn.wkv_b = drawn(m.r, m.h * (m.nope + m.dv), ls, kIdMlaKvb, 1.0f);  // (r, H*(nope+dv))
    L.attn.wo = drawn(m.h * m.dv, d, ls, kIdMlaO, out_scale);           // (H*dv, D)
    L.mlp.w_gate = drawn(d, f, ls, kIdGate, 1.0f);
    L.mlp.w_up = drawn(d, f, ls, kIdUp, 1.0f);
    L.mlp.w_down = drawn(f, d, ls, kIdDown, out_scale);
    DeepseekLayer& G = deepseek_grads_[std::size_t(l)];
    G.attn_norm = zeros_like(L.attn_norm);
    G.mlp_norm = zeros_like(L.mlp_norm);
    G.attn = mla_zeros_like(L.attn);
    G.mlp = {zeros_like(L.mlp.w_gate), zeros_like(L.mlp.w_up), zeros_like(L.mlp.w_down)};
  }
  d_wte = zeros_like(wte);
  d_lnf_g = zeros_like(lnf_g);
  if (!cfg.tied) d_w_unembed = zeros_like(w_unembed);
  params_.push_back({"wte", &wte, &d_wte, true});
  for (std::size_t l = 0; l < deepseek_.size(); ++l) {
    DeepseekLayer& L = deepseek_[l];
    DeepseekLayer& G = deepseek_grads_[l];
    const std::string p = "layers." + std::to_string(l) + ".";
    params_.push_back({p + "ln1.gamma", &L.attn_norm, &G.attn_norm, false});
    if (m.qr == 0) {
      params_.push_back({p + "attn.wq", &L.attn.wq, &G.attn.wq, true});
    } else {
      params_.push_back({p + "attn.wq_a", &L.attn.wq_a, &G.attn.wq_a, true});
      params_.push_back({p + "attn.q_a_norm", &L.attn.q_a_norm, &G.attn.q_a_norm, false});
      params_.push_back({p + "attn.wq_b", &L.attn.wq_b, &G.attn.wq_b, true});
    }
    params_.push_back({p + "attn.wkv_a", &L.attn.wkv_a, &G.attn.wkv_a, true});
    params_.push_back({p + "attn.kv_a_norm", &L.attn.kv_a_norm, &G.attn.kv_a_norm, false});
    params_.push_back({p + "attn.wkv_b", &L.attn.wkv_b, &G.attn.wkv_b, true});
    params_.push_back({p + "attn.wo", &L.attn.wo, &G.attn.wo, true});
    params_.push_back({p + "ln2.gamma", &L.mlp_norm, &G.mlp_norm, false});
    params_.push_back({p + "mlp.w_gate", &L.mlp.w_gate, &G.mlp.w_gate, true});
    params_.push_back({p + "mlp.w_up", &L.mlp.w_up, &G.mlp.w_up, true});
    params_.push_back({p + "mlp.w_down", &L.mlp.w_down, &G.mlp.w_down, true});
  }
  params_.push_back({"lnf.gamma", &lnf_g, &d_lnf_g, false});
  if (!cfg.tied) params_.push_back({"unembed", &w_unembed, &d_w_unembed, true});
}

void Model::final_rmsnorm_forward() {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  // xf = RMSNorm(x) * lnf                                              (R, D)
  lnf = uninitialised(rows, d);
  lnf_rstd = uninitialised(1, rows);
  rmsnorm_forward(lnf.data(), lnf_rstd.data(), x_final.data(), lnf_g.data(), rows, d, cfg_.norm_eps);
}

Matrix Model::final_rmsnorm_backward(const Matrix& dlnf) {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  Matrix dx = zeros(rows, d);       // (R, D) gradient of the residual stream
  // xf = RMSNorm(x) * lnf
  rmsnorm_backward(dx.data(), d_lnf_g.data(), dlnf.data(), x_final.data(), lnf_rstd.data(), lnf_g.data(), rows, d);
  return dx;
}

void Model::forward_deepseek(const Matrix& x0) {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  const MlaDims m = mla_dims(cfg_);
  Matrix x = x0;                    // (R, D)
  Matrix y = uninitialised(rows, d);
  for (std::size_t l = 0; l < deepseek_.size(); ++l) {
    // x = deepseek_block(x)
    deepseek_block_forward(y.data(), acts_[l].deepseek, x.data(), m, deepseek_[l], batch_, n_, cfg_.norm_eps);
    std::swap(x, y);
  }
  x_final = std::move(x);
  final_rmsnorm_forward();
}

void Model::backward_deepseek(const Matrix& dlnf) {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  const MlaDims m = mla_dims(cfg_);
  Matrix dx = final_rmsnorm_backward(dlnf);  // (R, D)
  Matrix dprev = uninitialised(rows, d);
  for (std::size_t li = deepseek_.size(); li-- > 0;) {
    // x = deepseek_block(x)
    dprev.fill(0.0f);
    deepseek_block_backward(dprev.data(), deepseek_grads_[li], dx.data(), acts_[li].deepseek, m, deepseek_[li]);
    std::swap(dx, dprev);
  }
  // x = wte[tokens]
  embedding_backward(d_wte.data(), dx.data(), tokens_.data(), rows, d);
}

void Model::forward_llama(const Matrix& x0, const Shape& s) {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  Matrix x = x0;                    // (R, D)
  Matrix y = uninitialised(rows, d);
  for (std::size_t l = 0; l < llama_.size(); ++l) {
    // x = llama_block(x)
    llama_block_forward(y.data(), acts_[l].llama, x.data(), s, llama_[l], batch_, n_, cfg_.norm_eps);
    std::swap(x, y);
  }
  x_final = std::move(x);
  // xf = RMSNorm(x) * lnf
  lnf = uninitialised(rows, d);
  lnf_rstd = uninitialised(1, rows);
  rmsnorm_forward(lnf.data(), lnf_rstd.data(), x_final.data(), lnf_g.data(), rows, d, cfg_.norm_eps);
}

void Model::backward_llama(const Matrix& dlnf, const Shape& s) {
  const int64_t rows = batch_ * n_, d = cfg_.attn.d;
  Matrix dx = zeros(rows, d);       // (R, D) gradient of the residual stream
  // xf = RMSNorm(x) * lnf
  rmsnorm_backward(dx.data(), d_lnf_g.data(), dlnf.data(), x_final.data(), lnf_rstd.data(), lnf_g.data(), rows, d);
  Matrix dprev = uninitialised(rows, d);
  for (std::size_t li = llama_.size(); li-- > 0;) {
    // x = llama_block(x)
    dprev.fill(0.0f);
    llama_block_backward(dprev.data(), llama_grads_[li], dx.data(), acts_[li].llama, s, llama_[li]);
    std::swap(dx, dprev);
  }
  // x = wte[tokens]
  embedding_backward(d_wte.data(), dx.data(), tokens_.data(), rows, d);
}

int64_t Model::param_count() const {
  int64_t total = 0;
  for (const auto& p : params_) total += int64_t(p.value->size());
  return total;
}

void Model::zero_grad() {
  for (auto& p : params_) p.grad->fill(0.0f);
}

double Model::forward(const int32_t* tokens, const int32_t* targets, const float* mask, int64_t batch,
                      int64_t n) {
  const int64_t d = cfg_.attn.d, v = cfg_.vocab, rows = batch * n;
  if (n < 1 || n > cfg_.attn.n) {
    throw_range("tokens", "sequence length (" + fmt(double(n)) + ") must be between 1 and seqLen (" + fmt(double(cfg_.attn.n)) + ")");
  }
  for (int64_t r = 0; r < rows; ++r) {
    if (tokens[r] < 0 || tokens[r] >= v) throw_range("tokens", "token (" + fmt(tokens[r]) + ") must be below vocabSize (" + fmt(double(v)) + ")");
    if (targets && (targets[r] < 0 || targets[r] >= v)) throw_range("targets", "target (" + fmt(targets[r]) + ") must be below vocabSize (" + fmt(double(v)) + ")");
  }
  const Shape s = layer_shape(cfg_, n);
  batch_ = batch;
  n_ = n;
  tokens_.assign(tokens, tokens + rows);
  acts_.resize(cfg_.block == Block::Llama ? llama_.size() : cfg_.block == Block::Deepseek ? deepseek_.size() : layers_.size());

  // x = wte[tokens] + wpe[pos]   (Llama: no positions)
  Matrix x = uninitialised(rows, d);  // (R, D)
  embedding_forward(x.data(), tokens, wte.data(), rows, d);
  if (cfg_.block == Block::Llama) {
    forward_llama(x, s);
    return head_forward(targets, mask);
  }
  if (cfg_.block == Block::Deepseek) {
    forward_deepseek(x);
    return head_forward(targets, mask);
  }
  position_forward(x.data(), wpe.data(), batch, n, d);

  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    LayerActs& A = acts_[l];
    A.x_in = x;
    // x = x + attn(LN1(x))
    const float* attn_in = x.data();
    if (cfg_.layer_norm) {
      attn_in = layernorm_keep(A.ln1, A.ln1_mean, A.ln1_rstd, x, L.ln1_g, L.ln1_b);
    }
    Matrix a = uninitialised(rows, d);
    attention_forward(a.data(), A.attn, s, L.attn, attn_in, batch, n);
    x += a;
    if (cfg_.mlp) {
      A.x_mid = x;
      // x = x + mlp(LN2(x))
      const float* mlp_in = x.data();
      if (cfg_.layer_norm) {
        mlp_in = layernorm_keep(A.ln2, A.ln2_mean, A.ln2_rstd, x, L.ln2_g, L.ln2_b);
      }
      Matrix m = uninitialised(rows, d);
      mlp_forward(m.data(), A.mlp, mlp_in, L.mlp, rows, cfg_.activation);
      x += m;
    }
  }
  x_final = x;
  if (cfg_.layer_norm) {
    // xf = LNf(x)
    layernorm_keep(lnf, lnf_mean, lnf_rstd, x_final, lnf_g, lnf_b);
  }
  return head_forward(targets, mask);
}

double Model::head_forward(const int32_t* targets, const float* mask) {
  const int64_t d = cfg_.attn.d, v = cfg_.vocab, rows = batch_ * n_;
  const float* head_in = cfg_.layer_norm ? lnf.data() : x_final.data();
  logits_ = uninitialised(rows, v);  // (R, V)
  if (cfg_.tied) {
    logits_.fill(0.0f);
    mm_nt_acc(logits_.data(), head_in, wte.data(), rows, d, v);  // logits = xf wte^T
  } else {
    linear_forward(logits_.data(), head_in, w_unembed.data(), nullptr, rows, d, v);  // logits = xf w_unembed
  }
  if (!targets) return 0.0;
  targets_.assign(targets, targets + rows);
  mask_.assign(mask, mask + rows);
  probs_ = uninitialised(rows, v);
  return cross_entropy_forward(probs_.data(), logits_.data(), targets, mask, rows, v);
}

void Model::backward() {
  const int64_t d = cfg_.attn.d, v = cfg_.vocab, batch = batch_, n = n_, rows = batch * n;
  const Shape s = layer_shape(cfg_, n);

  // loss = CE(logits, targets, mask)
  Matrix dlogits = uninitialised(rows, v);  // (R, V)
  cross_entropy_backward(dlogits.data(), probs_.data(), targets_.data(), mask_.data(), rows, v);

  const float* head_in = cfg_.layer_norm ? lnf.data() : x_final.data();
  Matrix dhead = zeros(rows, d);  // (R, D)
  if (cfg_.tied) {
    // logits = xf wte^T   =>   dxf += dlogits wte,   dwte += dlogits^T xf
    mm_nn(dhead.data(), dlogits.data(), wte.data(), rows, v, d, true);
    mm_tn_acc(d_wte.data(), dlogits.data(), head_in, v, rows, d);
  } else {
    // logits = xf w_unembed
    linear_backward(dhead.data(), d_w_unembed.data(), nullptr, dlogits.data(), head_in, w_unembed.data(),
                    rows, d, v);
  }
  if (cfg_.block == Block::Llama) {
    backward_llama(dhead, s);
    return;
  }
  if (cfg_.block == Block::Deepseek) {
    backward_deepseek(dhead);
    return;
  }
  Matrix dx = zeros(rows, d);  // (R, D) gradient of the residual stream
  if (cfg_.layer_norm) {
    // xf = LNf(x)
    layernorm_backward(dx.data(), d_lnf_g.data(), d_lnf_b.data(), dhead.data(), x_final.data(), lnf_mean.data(),
                       lnf_rstd.data(), lnf_g.data(), rows, d);
  } else {
    dx = dhead;
  }

  for (std::size_t li = layers_.size(); li-- > 0;) {
    const Layer& L = layers_[li];
    Layer& G = grads_[li];
    const LayerActs& A = acts_[li];
    if (cfg_.mlp) {
      // x = x_mid + mlp(LN2(x_mid))   =>   dx_mid = dx + d(mlp path)
      const float* mlp_in = cfg_.layer_norm ? A.ln2.data() : A.x_mid.data();
      if (cfg_.layer_norm) {
        Matrix dln = zeros(rows, d);
        mlp_backward(dln.data(), G.mlp, dx.data(), mlp_in, A.mlp, L.mlp, rows, cfg_.activation);
        layernorm_backward(dx.data(), G.ln2_g.data(), G.ln2_b.data(), dln.data(), A.x_mid.data(), A.ln2_mean.data(),
                           A.ln2_rstd.data(), L.ln2_g.data(), rows, d);
      } else {
        Matrix dm = dx;  // dx is both the residual gradient and the MLP output gradient
        mlp_backward(dx.data(), G.mlp, dm.data(), mlp_in, A.mlp, L.mlp, rows, cfg_.activation);
      }
    }
    // x_mid = x_in + attn(LN1(x_in))
    const float* attn_in = cfg_.layer_norm ? A.ln1.data() : A.x_in.data();
    if (cfg_.layer_norm) {
      Matrix dln = zeros(rows, d);
      attention_backward(dln.data(), G.attn, dx.data(), attn_in, A.attn, s, L.attn);
      layernorm_backward(dx.data(), G.ln1_g.data(), G.ln1_b.data(), dln.data(), A.x_in.data(), A.ln1_mean.data(),
                         A.ln1_rstd.data(), L.ln1_g.data(), rows, d);
    } else {
      Matrix da = dx;
      attention_backward(dx.data(), G.attn, da.data(), attn_in, A.attn, s, L.attn);
    }
  }
  // x = wte[tokens] + wpe[pos]
  embedding_backward(d_wte.data(), dx.data(), tokens_.data(), rows, d);
  position_backward(d_wpe.data(), dx.data(), batch, n, d);
}

}  // namespace attn::train
