"""The trainer's Llama golden file: tests/fixtures/train_llama_golden.json (written by gen_fixtures.py).

Forward outputs and autograd gradients, in PyTorch, of each layer that the trainer's Llama block adds
(core/include/attn/train/llama_layers.hpp, llama_block.hpp) and of whole Llama models (tied and untied
embeddings), on small random cases. The formulas are Hugging Face's LlamaForCausalLM
(reference/hf-models.md, "llama"), written out here because transformers is not installed:

  RMSNorm   y = w * x / sqrt(mean(x^2) + eps)
  RoPE      rotate-half on every head of width w: pair (i, i + w/2) turned by pos * base^(-2i/w)
  SwiGLU    down(silu(gate(x)) * up(x)), no biases
  block     h = RMSNorm(x); x' = x + o_proj(attend(rope(q_proj h), rope(k_proj h), v_proj h));
            out = x' + SwiGLU(RMSNorm(x')); causal; query head h reads K/V head h // (H/G)
            (repeat_interleave); scores scaled by 1/sqrt(head_dim)
  model     x = embed_tokens[ids]; blocks; logits = RMSNorm(x) lm_head^T (or embed_tokens^T, tied);
            loss = sum_r mask_r * CE(logits_r, target_r) / sum_r mask_r; every sequence from position 0

Inputs are float32 drawn from a torch.Generator seeded per case; the references are computed in
float64 from those values (autograd for every gradient, against a random upstream gradient `dout`
for the layers and the block, of the loss for the models) and stored as float32. Layer and block
matrices are stored in the trainer's (in, out) layout (y = x @ W); the models' weights under their
Hugging Face names and (out, in) layouts, so that the same numbers test the trainer's forward and
backward and the checkpoint it exports.

File: {"version", "generator", "torch", "tolerance", "cases": [{"name", "kind" ("rmsnorm" | "rope" |
"swiglu" | "block" | "model"), "sizes": {...}, "tensors": {name: {"shape": [...], "data": base64 of
float32 little-endian}}}]}. Token ids, targets and the mask are float32 tensors too (small integers).
"""
import math
import os

import torch

OUT_PATH = os.path.join("tests", "fixtures", "train_llama_golden.json")
F64 = torch.float64
EPS = 1e-5  # the trainer's RMSNorm eps (kLlamaNormEps)


class Draw:
    """Seeded float32 draws, in call order."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def randn(self, *shape, scale=1.0):
        return (torch.randn(*shape, generator=self.g, dtype=torch.float32) * scale)

    def uniform(self, *shape, bound):
        return (torch.rand(*shape, generator=self.g, dtype=torch.float32) * 2 - 1) * bound

    def gain(self, n):  # norm weights around 1, so that their gradients matter
        return 1.0 + self.randn(n, scale=0.2)

    def ints(self, hi, *shape):
        return torch.randint(0, hi, shape, generator=self.g)


def rms_norm(x, w):
    return w * x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS)


def rope(x, n_heads, width, base):
    """x (B, N, heads*width): rotate-half on every head, positions 0..N-1 in each sequence."""
    b, n, _ = x.shape
    inv = base ** (-torch.arange(0, width, 2, dtype=F64) / width)                  # (w/2)
    ang = torch.arange(n, dtype=F64)[:, None] * inv[None, :]                         # (N, w/2)
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    h = x.reshape(b, n, n_heads, width)
    rot = torch.cat([-h[..., width // 2:], h[..., :width // 2]], -1)
    return (h * cos[None, :, None, :] + rot * sin[None, :, None, :]).reshape(b, n, n_heads * width)


def swiglu(x, wg, wu, wd):  # trainer layout: (in, out)
    return (torch.nn.functional.silu(x @ wg) * (x @ wu)) @ wd


def attention(h, wq, wk, wv, wo, H, G, dh, base):
    """h (B, N, D); trainer-layout projections. Causal, rope on q and k, GQA by repeat_interleave."""
    b, n, _ = h.shape
    q = rope(h @ wq, H, dh, base).reshape(b, n, H, dh).transpose(1, 2)              # (B, H, N, dh)
    k = rope(h @ wk, G, dh, base).reshape(b, n, G, dh).transpose(1, 2)              # (B, G, N, dh)
    v = (h @ wv).reshape(b, n, G, dh).transpose(1, 2)
    k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
    s = q @ k.transpose(-1, -2) / math.sqrt(dh)
    s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    o = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, n, H * dh)
    return o @ wo


def block(x, p, H, G, dh, base):
    x = x + attention(rms_norm(x, p["attn_norm"]), p["wq"], p["wk"], p["wv"], p["wo"], H, G, dh, base)
    return x + swiglu(rms_norm(x, p["mlp_norm"]), p["w_gate"], p["w_up"], p["w_down"])


def leaves(tensors):
    return {k: v.to(F64).requires_grad_(True) for k, v in tensors.items()}


def backward(out, dout, inputs):
    """Autograd of sum(out * dout) for every input: {"d_" + name: grad}."""
    grads = torch.autograd.grad((out * dout).sum(), list(inputs.values()))
    return {"d_" + k: g for k, g in zip(inputs, grads)}


# --- cases -------------------------------------------------------------------------------------

def rmsnorm_case(seed):
    r, d = 7, 12
    dr = Draw(seed)
    t = {"x": dr.randn(r, d, scale=2.0), "gamma": dr.gain(d)}
    dout = dr.randn(r, d)
    leaf = leaves(t)
    out = rms_norm(leaf["x"], leaf["gamma"])
    return {"rows": r, "d": d, "eps": EPS}, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


def rope_case(seed, base):
    b, n, heads, width = 2, 9, 3, 6
    dr = Draw(seed)
    t = {"x": dr.randn(b * n, heads * width)}
    dout = dr.randn(b * n, heads * width)
    leaf = leaves(t)
    out = rope(leaf["x"].reshape(b, n, heads * width), heads, width, base).reshape(b * n, heads * width)
    sizes = {"batch": b, "n": n, "heads": heads, "width": width, "base": base}
    return sizes, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


def swiglu_case(seed):
    r, d, f = 6, 8, 12
    dr = Draw(seed)
    t = {"x": dr.randn(r, d), "w_gate": dr.uniform(d, f, bound=1.5 / math.sqrt(d)),
         "w_up": dr.uniform(d, f, bound=1.5 / math.sqrt(d)), "w_down": dr.uniform(f, d, bound=1 / math.sqrt(f))}
    dout = dr.randn(r, d)
    leaf = leaves(t)
    out = swiglu(leaf["x"], leaf["w_gate"], leaf["w_up"], leaf["w_down"])
    return {"rows": r, "d": d, "f": f}, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


def block_params(dr, d, H, G, dh, f):
    qk = 2.0  # larger query and key projections: maps far from uniform
    return {"attn_norm": dr.gain(d), "mlp_norm": dr.gain(d),
            "wq": dr.uniform(d, H * dh, bound=qk / math.sqrt(d)), "wk": dr.uniform(d, G * dh, bound=qk / math.sqrt(d)),
            "wv": dr.uniform(d, G * dh, bound=1 / math.sqrt(d)), "wo": dr.uniform(H * dh, d, bound=1 / math.sqrt(H * dh)),
            "w_gate": dr.uniform(d, f, bound=1.5 / math.sqrt(d)), "w_up": dr.uniform(d, f, bound=1.5 / math.sqrt(d)),
            "w_down": dr.uniform(f, d, bound=1 / math.sqrt(f))}


def block_case(seed, H, G, dh):
    b, n, d, f, base = 2, 6, 8, 12, 10000.0
    dr = Draw(seed)
    t = {"x": dr.randn(b * n, d), **block_params(dr, d, H, G, dh, f)}
    dout = dr.randn(b * n, d)
    leaf = leaves(t)
    p = {k: v for k, v in leaf.items() if k != "x"}
    out = block(leaf["x"].reshape(b, n, d), p, H, G, dh, base).reshape(b * n, d)
    sizes = {"batch": b, "n": n, "d": d, "h": H, "g": G, "dh": dh, "f": f, "base": base, "eps": EPS}
    return sizes, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


# Hugging Face names of one layer's tensors, and the trainer-layout parameter each one is (transposed
# for nn.Linear weights: HF stores (out, in)).
HF_LAYER = [("input_layernorm.weight", "attn_norm"), ("self_attn.q_proj.weight", "wq"),
            ("self_attn.k_proj.weight", "wk"), ("self_attn.v_proj.weight", "wv"), ("self_attn.o_proj.weight", "wo"),
            ("post_attention_layernorm.weight", "mlp_norm"), ("mlp.gate_proj.weight", "w_gate"),
            ("mlp.up_proj.weight", "w_up"), ("mlp.down_proj.weight", "w_down")]


def model_case(seed, H, G, dh, tied):
    b, n, d, f, v, layers, base = 2, 6, 8, 12, 11, 2, 10000.0
    dr = Draw(seed)
    hf = {"model.embed_tokens.weight": dr.uniform(v, d, bound=0.5)}
    for i in range(layers):
        p = block_params(dr, d, H, G, dh, f)
        for name, key in HF_LAYER:
            hf[f"model.layers.{i}.{name}"] = p[key].T.contiguous() if p[key].dim() == 2 else p[key]
    hf["model.norm.weight"] = dr.gain(d)
    if not tied:
        hf["lm_head.weight"] = dr.uniform(v, d, bound=1 / math.sqrt(d))
    ids = dr.ints(v, b, n)
    targets = dr.ints(v, b, n)
    mask = (dr.ints(4, b, n) > 0).to(torch.float32)  # about a quarter of the positions not counted
    w = leaves(hf)
    x = w["model.embed_tokens.weight"][ids]                                           # (B, N, D)
    for i in range(layers):
        p = {key: (w[f"model.layers.{i}.{name}"].T if key.startswith("w") else w[f"model.layers.{i}.{name}"])
             for name, key in HF_LAYER}
        x = block(x, p, H, G, dh, base)
    head = w["model.embed_tokens.weight"] if tied else w["lm_head.weight"]
    logits = rms_norm(x, w["model.norm.weight"]) @ head.T                              # (B, N, V)
    ce = torch.nn.functional.cross_entropy(logits.reshape(b * n, v), targets.reshape(b * n), reduction="none")
    m = mask.reshape(b * n).to(F64)
    loss = (ce * m).sum() / m.sum()
    grads = torch.autograd.grad(loss, list(w.values()))
    sizes = {"batch": b, "n": n, "d": d, "h": H, "g": G, "dh": dh, "f": f, "vocab": v, "layers": layers,
             "base": base, "eps": EPS, "tied": tied}
    t = {**hf, "ids": ids.to(torch.float32), "targets": targets.to(torch.float32), "mask": mask,
         "logits": logits.reshape(b * n, v), "loss": loss.reshape(1)}
    t.update({"grad." + k: g for k, g in zip(w, grads)})
    return sizes, t


CASES = [
    ("rmsnorm", "rmsnorm", lambda s: rmsnorm_case(s)),
    ("rope_base10000", "rope", lambda s: rope_case(s, 10000.0)),
    ("rope_base50", "rope", lambda s: rope_case(s, 50.0)),
    ("swiglu", "swiglu", lambda s: swiglu_case(s)),
    ("block_mha", "block", lambda s: block_case(s, 2, 2, 4)),
    ("block_gqa", "block", lambda s: block_case(s, 4, 2, 4)),
    ("block_mqa", "block", lambda s: block_case(s, 4, 1, 2)),
    ("model_gqa_untied", "model", lambda s: model_case(s, 4, 2, 4, False)),
    ("model_gqa_tied", "model", lambda s: model_case(s, 4, 2, 4, True)),
    ("model_mqa_tied", "model", lambda s: model_case(s, 4, 1, 2, True)),
    ("model_mha_untied_dhead6", "model", lambda s: model_case(s, 2, 2, 6, False)),
]


def build(b64):
    cases = []
    for i, (name, kind, make) in enumerate(CASES, start=1):
        sizes, tensors = make(1000 + i)
        cases.append({"name": name, "kind": kind, "sizes": sizes,
                      "tensors": {k: {"shape": list(t.shape), "data": b64(t)} for k, t in tensors.items()}})
        out = tensors.get("out", tensors.get("logits"))
        print(f"{name:28s} max|out| = {out.abs().max().item():.6f}")
    return {
        "version": 1,
        "generator": "scripts/gen_fixtures.py (scripts/train_fixtures.py)",
        "torch": torch.__version__,
        "tolerance": {"relative": 1e-4, "definition": "max|got-ref| / max|ref| per tensor"},
        "cases": cases,
    }
