// model.cpp — a checkpoint's forward pass (see model.hpp).
#include "attn/pretrained/model.hpp"

#include <algorithm>
#include <cmath>

#include "attn/attention.hpp"
#include "attn/errors.hpp"
#include "attn/pretrained/linear.hpp"
#include "attn/spec.hpp"

namespace attn::pretrained {

namespace {

// The view of a stored tensor: a matrix, or a vector as one row.
WeightView view_of(const TensorStore& t, const std::string& name) {
  const auto it = t.find(name);
  if (it == t.end()) return {};
  const StoredTensor& s = it->second;
  const int64_t rows = s.shape.size() == 2 ? s.shape[0] : 1, cols = s.shape.empty() ? 1 : s.shape.back();
  return {s.dtype, s.bytes.get(), rows, cols, cols};
}

}  // namespace

PretrainedModel::PretrainedModel(ModelConfig config, TensorStore tensors)
    : config_(std::move(config)), tensors_(std::move(tensors)) {
  const ModelConfig& c = config_;
  auto v = [&](const std::string& name) { return view_of(tensors_, name); };
  auto lin = [&](const std::string& name, bool bias) {
    return Linear{v(name + ".weight"), bias ? v(name + ".bias") : WeightView{}, c.arch == Arch::GPT2};
  };
  auto norm = [&](const std::string& name, double eps) {
    return Norm{c.norm, v(name + ".weight"), c.norm == NormKind::LayerNorm ? v(name + ".bias") : WeightView{}, eps};
  };
  const bool gpt = c.arch == Arch::GPT2 || c.arch == Arch::GPTBigCode;
  for (int64_t l = 0; l < c.n_layers; ++l) {
    LayerWeights w;
    if (gpt) {
      const std::string p = "h." + std::to_string(l) + ".";
      w.attn_norm = norm(p + "ln_1", c.norm_eps);
      w.mlp_norm = norm(p + "ln_2", c.norm_eps);
      // [q | k | v] in one tensor: three views of it, columns of gpt2's Conv1D (in, out), rows of
      // gpt_bigcode's nn.Linear (out, in), and the same columns of the bias
      const Linear qkv = lin(p + "attn.c_attn", true);
      const int64_t wq = c.n_heads * c.head_dim, wkv = c.n_kv_heads * c.head_dim;
      auto part = [&](int64_t from, int64_t n) {
        return Linear{qkv.in_out ? qkv.w.col_range(from, n) : qkv.w.row_range(from, n), qkv.bias.col_range(from, n), qkv.in_out};
      };
      w.q = part(0, wq);
      w.k = part(wq, wkv);
      w.v = part(wq + wkv, wkv);
      w.fused_qkv = true;
      w.o = lin(p + "attn.c_proj", true);
      w.mlp.kind = MlpKind::GeluTanh;
      w.mlp.fc = lin(p + "mlp.c_fc", true);
      w.mlp.proj = lin(p + "mlp.c_proj", true);
    } else {
      const std::string p = "layers." + std::to_string(l) + ".", a = p + "self_attn.";
      w.attn_norm = norm(p + "input_layernorm", c.norm_eps);
      w.mlp_norm = norm(p + "post_attention_layernorm", c.norm_eps);
      if (c.mla) {  // DeepSeek's q_a_layernorm and kv_a_layernorm use eps 1e-6 whatever rms_norm_eps says
        w.q = lin(a + "q_proj", false);
        w.q_a = lin(a + "q_a_proj", c.qkv_bias);
        w.q_a_norm = norm(a + "q_a_layernorm", 1e-6);
        w.q_b = lin(a + "q_b_proj", false);
        w.kv_a = lin(a + "kv_a_proj_with_mqa", c.qkv_bias);
        w.kv_a_norm = norm(a + "kv_a_layernorm", 1e-6);
        w.kv_b = lin(a + "kv_b_proj", false);
      } else {
        w.q = lin(a + "q_proj", c.qkv_bias);
        w.k = lin(a + "k_proj", c.qkv_bias);
        w.v = lin(a + "v_proj", c.qkv_bias);
        if (c.qk_norm) {
          w.q_norm = norm(a + "q_norm", c.norm_eps);
          w.k_norm = norm(a + "k_norm", c.norm_eps);
        }
      }
      w.o = lin(a + "o_proj", c.o_bias);
      w.mlp.kind = MlpKind::SwiGLU;
      w.mlp.gate = lin(p + "mlp.gate_proj", c.mlp_bias);
      w.mlp.up = lin(p + "mlp.up_proj", c.mlp_bias);
      w.mlp.down = lin(p + "mlp.down_proj", c.mlp_bias);
    }
    layers_.push_back(w);
  }
  embed_ = v(gpt ? "wte.weight" : "embed_tokens.weight");
  if (gpt) positions_ = v("wpe.weight");
  final_norm_ = norm(gpt ? "ln_f" : "norm", c.norm_eps);
  head_ = c.tied ? embed_ : v("lm_head.weight");
  for (const auto& [name, t] : tensors_) {
    params_ += double(t.size / dtype_bytes(t.dtype));
    weight_bytes_ += double(t.size);
  }
  held_.set(weight_bytes_);
}

double PretrainedModel::kv_bytes_per_token() const {
  const WeightView& kv = config_.mla ? layers_[0].kv_a.w : layers_[0].k.w;
  return double(config_.cache_floats_per_token()) * double(config_.n_layers) * double(dtype_bytes(kv.dtype));
}

void PretrainedModel::check_ids(const std::vector<int32_t>& ids, int64_t pos0) const {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= config_.vocab) {
      throw_range("ids", "ids[" + fmt(double(i)) + "] (" + fmt(double(ids[i])) + ") must be a token id between 0 and " +
                             fmt(double(config_.vocab - 1)) + " (vocab_size " + fmt(double(config_.vocab)) + ")");
    }
  }
  if (config_.n_positions > 0 && pos0 + int64_t(ids.size()) > config_.n_positions) {
    throw_range("ids", "positions up to " + fmt(double(pos0 + int64_t(ids.size()))) + " exceed the model's " +
                           fmt(double(config_.n_positions)) + " learned positions (config.n_positions)");
  }
}

std::vector<int32_t> PretrainedModel::ids_from_numbers(const std::vector<double>& numbers) const {
  if (double(numbers.size()) > kMaxDim) {
    throw_range("ids", "ids has " + fmt(double(numbers.size())) + " token ids, more than " + fmt(kMaxDim));
  }
  std::vector<int32_t> ids(numbers.size());
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const double v = numbers[i];
    if (!std::isfinite(v) || v != std::floor(v) || v < 0 || v >= double(config_.vocab)) {
      throw_range("ids", "ids[" + fmt(double(i)) + "] (" + fmt(v) + ") must be a token id between 0 and " +
                             fmt(double(config_.vocab - 1)) + " (vocab_size " + fmt(double(config_.vocab)) + ")");
    }
    ids[i] = int32_t(v);
  }
  return ids;
}

double PretrainedModel::work_bytes(int64_t n, int64_t past, bool attentions) const {
  const ModelConfig& c = config_;
  const double total = double(past + n), rows = double(n);
  const double widest = std::max({double(c.n_heads * c.head_dim + 2 * c.n_kv_heads * c.head_dim),
                                  2.0 * double(c.intermediate), double(c.n_heads) * (c.kv_lora_rank + c.qk_rope + c.head_dim + c.qk_nope + 2 * c.v_head_dim)});
  double floats = rows * (double(c.vocab) + 4.0 * double(c.d_model) + 2.0 * widest);
  floats += rows * double(c.cache_floats_per_token()) * 2.0;        // a layer's new K/V (forward's own cache)
  floats += double(kQueryBlock) * total * double(c.n_heads);        // scores of one block of queries
  if (attentions) floats += double(c.n_layers) * double(c.n_heads) * rows * total;
  return 4.0 * floats + double(kBlockBytes);
}

Cost PretrainedModel::call_cost(int64_t n, int64_t past, bool attentions, bool session) const {
  const ModelConfig& c = config_;
  // A product through linear.hpp: (m, k) by a stored (k, n) weight. Few rows stream the weight once at
  // its dtype; more widen it into packed float blocks first (read, written, read back).
  const double stored = params_ > 0 ? weight_bytes_ / params_ : 4.0;  // bytes per weight element
  auto linear_work = [&](double m, double k, double n_out) {
    Work w;
    w.gemm = 2.0 * m * k * n_out;
    w.bytes = k * n_out * (m < double(kDirectRows) ? stored : stored + 8.0) + 4.0 * m * (k + n_out);
    return w;
  };
  const double N = double(n), L = double(c.n_layers), D = double(c.d_model), H = double(c.n_heads);
  const int64_t total = past + n;
  Cost cost;
  cost.call = session ? "appending " + fmt(N) + " tokens to a cache of " + fmt(double(past))
                      : "this forward pass over " + fmt(N) + " tokens";
  cost.hint = "(fewer token ids per call)";
  // Per layer: the norms (plain loops over the rows), the attention's projections, its kernel, the MLP.
  Work proj, attend;
  if (c.mla) {
    const double r = double(c.kv_lora_rank), dr = double(c.qk_rope), dqk = double(c.head_dim);
    const double nope = double(c.qk_nope), dv = double(c.v_head_dim);
    if (c.q_lora_rank > 0) {
      const double ql = double(c.q_lora_rank);
      proj += linear_work(N, D, ql) + linear_work(N, ql, H * dqk);  // q_a, q_b
      proj.loops += 4.0 * N * ql;                               // q_a_layernorm
    } else {
      proj += linear_work(N, D, H * dqk);                         // q
    }
    proj += linear_work(N, D, r + dr);                            // kv_a: [c | k_pe]
    proj.loops += 4.0 * N * r;                                  // kv_a_layernorm
    proj.elementwise += N * (H + 1.0) * dr;                     // RoPE
    if (session) {  // absorbed: q~_h = q_nope_h W_uk_h (n, r), o_h = o~_h W_uv_h^T (n, dv)
      proj += linear_work(N, nope, r) * H + linear_work(N, r, dv) * H;
      attend = kernel_work(c.n_heads, 1, n, total, c.kv_lora_rank + c.qk_rope, c.kv_lora_rank, true, past);
    } else {        // naive: k, v decompressed from the latent for every row
      proj += linear_work(N, r, H * (nope + dv));
      attend = kernel_work(c.n_heads, c.n_heads, n, total, c.head_dim, c.v_head_dim, true, past);
    }
    proj += linear_work(N, H * dv, D);                            // o
  } else {
    const double dh = double(c.head_dim), G = double(c.n_kv_heads);
    proj += linear_work(N, D, (H + 2.0 * G) * dh) + linear_work(N, H * dh, D);  // q k v, o
    if (c.qk_norm) proj.loops += 4.0 * N * (H + G) * dh;
    if (c.rope) proj.elementwise += N * (H + G) * dh;
    attend = kernel_work(c.n_heads, c.n_kv_heads, n, total, c.head_dim, c.head_dim, true, past);
  }
  proj.loops += 2.0 * 4.0 * N * D;                              // the two norms of the block
  const double I = double(c.intermediate);
  Work mlp = c.mlp == MlpKind::SwiGLU ? linear_work(N, D, I) * 2.0 + linear_work(N, I, D)  // gate, up, down
                                      : linear_work(N, D, I) + linear_work(N, I, D);       // fc, proj
  mlp.elementwise += N * I;                                     // SiLU / GELU
  cost.add("the projections of every layer", "ids", proj * L);
  cost.add("the attention of every layer", "ids", attend * L);
  cost.add("the MLP of every layer", "ids", mlp * L);
  Work head = linear_work(N, D, double(c.vocab));
  head.bytes += 4.0 * N * double(c.vocab) * 2.0;                // the logits copied out
  cost.add("the LM head (logits)", "ids", head);
  if (attentions) {
    Work maps;
    maps.scores = L * H * N * double(total);                    // written, copied out
    maps.bytes = 4.0 * L * H * N * double(total) * 2.0;
    cost.add("the attention maps of every layer", "attentions", maps);
  }
  return cost;
}

Matrix PretrainedModel::embed(const std::vector<int32_t>& ids, int64_t pos0) const {
  const int64_t n = int64_t(ids.size()), d = config_.d_model;
  Matrix x = uninitialised(n, d);
  std::vector<float> pos(std::size_t(positions_.empty() ? 0 : d));
  for (int64_t i = 0; i < n; ++i) {
    widen_row(embed_, ids[std::size_t(i)], x.data() + i * d);
    if (!positions_.empty()) {
      widen_row(positions_, pos0 + i, pos.data());
      for (int64_t j = 0; j < d; ++j) x.data()[i * d + j] += pos[std::size_t(j)];
    }
  }
  return x;
}

Matrix PretrainedModel::logits(const Matrix& x) const {
  const int64_t n = int64_t(x.shape(0)), d = config_.d_model;
  Matrix h = uninitialised(n, d);
  norm_rows(final_norm_, x.data(), n, d, h.data(), d);
  Matrix out = uninitialised(n, config_.vocab);  // (N, V) = h head^T
  matmul_wt(n, h.data(), d, head_, out.data(), config_.vocab);
  return out;
}

StageRecord PretrainedModel::layer_stages(const std::vector<int32_t>& ids, int64_t layer) const {
  if (ids.empty()) throw_range("ids", "ids is empty: pass at least one token id");
  check_ids(ids, 0);
  check_layer(double(layer));
  Matrix x = embed(ids, 0);
  StageRecord rec;
  for (int64_t l = 0; l <= layer; ++l) {
    decoder_layer_sequence(config_, layers_[std::size_t(l)], x, nullptr, l == layer ? &rec : nullptr);
    check_layer_output(x, l);
  }
  return rec;
}

int64_t PretrainedModel::check_layer(double layer) const {
  const double last = double(config_.n_layers - 1);
  if (!std::isfinite(layer) || layer != std::floor(layer) || layer < 0 || layer > last) {
    throw_range("layer", "layer (" + fmt(layer) + ") must be an integer between 0 and " + fmt(last) + " (the model has " +
                             fmt(double(config_.n_layers)) + " layers, config.num_hidden_layers)");
  }
  return int64_t(layer);
}

double PretrainedModel::stages_bytes(int64_t n) const {
  const ModelConfig& c = config_;
  const double N = double(n), H = double(c.n_heads), G = double(c.n_kv_heads), dv = double(c.d_v());
  double floats = 2.0 * N * double(c.d_model) + 2.0 * H * N * N + 2.0 * N * H * dv;  // x, output, scores, maps, heads, concat
  if (c.mla) {
    const double r = double(c.kv_lora_rank), dr = double(c.qk_rope), nope = double(c.qk_nope), dqk = double(c.head_dim);
    floats += N * (double(c.q_lora_rank) + 2.0 * H * nope + 2.0 * r + H * dv + H * dr + dr);  // cq, q, k, c, cNorm, v, qRope, kRope
    floats += H * N * (2.0 * dqk + dv) + N * (r + dr) + H * N * r;                          // the heads, cache, qAbsorbed
  } else {
    floats += 4.0 * N * (H + 2.0 * G) * double(c.head_dim);  // q k v, their norms, rotations and heads
  }
  return 4.0 * floats;
}

ModelOutput PretrainedModel::forward(const std::vector<int32_t>& ids, bool attentions) const {
  const int64_t n = int64_t(ids.size());
  ModelOutput r;
  Matrix x = embed(ids, 0);
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    float* maps = nullptr;
    if (attentions) {
      r.attentions.push_back(Tensor3::from_shape({std::size_t(config_.n_heads), std::size_t(n), std::size_t(n)}));
      maps = r.attentions.back().data();
    }
    decoder_layer_sequence(config_, layers_[l], x, maps);
    check_layer_output(x, int64_t(l));
  }
  r.logits = logits(x);
  check_logits(r.logits);
  return r;
}

}  // namespace attn::pretrained
