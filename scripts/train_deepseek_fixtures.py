"""The trainer's DeepSeek-V2 golden file: tests/fixtures/train_deepseek_golden.json (written by
gen_fixtures.py, or alone: /usr/bin/python3 scripts/train_deepseek_fixtures.py).

Forward outputs and autograd gradients, in PyTorch, of what the trainer's DeepSeek block adds
(core/include/attn/train/deepseek_layers.hpp, deepseek_block.hpp) and of whole DeepSeek models (tied
and untied embeddings), on small random cases. The formulas are Hugging Face's DeepseekV2ForCausalLM
with dense MLPs (reference/hf-models.md, "deepseek_v2"), written out here because transformers is
not installed; RMSNorm, SwiGLU and the loss are train_fixtures.py's (the Llama golden file's):

  RoPE      adjacent pairs: pair (2i, 2i+1) of a width-w vector at position p turned by
            p * base^(-2i/w) (HF's complex-number form; DeepSeek's [even | odd] permutation followed
            by rotate-half gives the same scores)
  MLA       q = h wq, or RMSNorm_1e-6(h wq_a) * q_a_norm wq_b; per head [q_nope | rope(q_rope)]
            [c | k_pe] = h wkv_a; cn = RMSNorm_1e-6(c) * kv_a_norm; kpe = rope(k_pe) (one, shared)
            per head [k_nope | v] = cn wkv_b; k_h = [k_nope_h | kpe]
            softmax(q_h k_h^T / sqrt(nope + rope)) causal; o = concat_h(p_h v_h); out = o wo
  block     x' = x + MLA(RMSNorm(x)); out = x' + SwiGLU(RMSNorm(x'))
  model     x = embed_tokens[ids]; blocks; logits = RMSNorm(x) lm_head^T (or embed_tokens^T, tied)

As train_fixtures.py: float32 inputs from a seeded torch.Generator, float64 references (autograd
of sum(out * dout) for the layers and the block, of the loss for the models), stored as float32.
Layer and block matrices in the trainer's (in, out) layout; the models' weights under their Hugging
Face names and (out, in) layouts. File format: train_fixtures.py's ("kind": "rope_adjacent" | "mla" |
"block" | "model").
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_fixtures import EPS, F64, Draw, backward, leaves, rms_norm, swiglu  # noqa: E402

OUT_PATH = os.path.join("tests", "fixtures", "train_deepseek_golden.json")
LATENT_EPS = 1e-6  # q_a_layernorm and kv_a_layernorm (HF fixes it)


def rms_norm_eps(x, w, eps):
    return w * x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)


def rope_adjacent(x, base):
    """x (B, N, ..., w): pairs (2i, 2i+1) turned by pos * base^(-2i/w), pos = axis 1."""
    n, w = x.shape[1], x.shape[-1]
    inv = base ** (-torch.arange(0, w, 2, dtype=F64) / w)                              # (w/2)
    ang = torch.arange(n, dtype=F64)[:, None] * inv[None, :]                           # (N, w/2)
    shape = [1, n] + [1] * (x.dim() - 3) + [w // 2]
    cos, sin = ang.cos().reshape(shape), ang.sin().reshape(shape)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).reshape(x.shape)


def mla(h, p, H, nope, dr, dv, r, base):
    """h (B, N, D); trainer-layout projections (p: wq or wq_a, q_a_norm, wq_b; wkv_a, kv_a_norm, wkv_b, wo)."""
    b, n, _ = h.shape
    dqk = nope + dr
    if "wq" in p:
        q = h @ p["wq"]
    else:
        q = rms_norm_eps(h @ p["wq_a"], p["q_a_norm"], LATENT_EPS) @ p["wq_b"]
    q = q.reshape(b, n, H, dqk)
    q = torch.cat([q[..., :nope], rope_adjacent(q[..., nope:], base)], -1).transpose(1, 2)  # (B, H, N, dqk)
    ckr = h @ p["wkv_a"]                                                                   # (B, N, r + dr)
    cn = rms_norm_eps(ckr[..., :r], p["kv_a_norm"], LATENT_EPS)
    kpe = rope_adjacent(ckr[..., r:], base)                                                # (B, N, dr)
    kv = (cn @ p["wkv_b"]).reshape(b, n, H, nope + dv).transpose(1, 2)                     # (B, H, N, nope+dv)
    k = torch.cat([kv[..., :nope], kpe[:, None].expand(b, H, n, dr)], -1)
    v = kv[..., nope:]
    s = q @ k.transpose(-1, -2) / math.sqrt(dqk)
    s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    o = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, n, H * dv)
    return o @ p["wo"]


def block(x, p, dims):
    x = x + mla(rms_norm(x, p["attn_norm"]), p, **dims)
    return x + swiglu(rms_norm(x, p["mlp_norm"]), p["w_gate"], p["w_up"], p["w_down"])


def mla_params(dr_, d, H, nope, dr, dv, r, qr):
    qk = 2.0  # larger query and key projections: maps far from uniform
    p = {}
    if qr == 0:
        p["wq"] = dr_.uniform(d, H * (nope + dr), bound=qk / math.sqrt(d))
    else:
        p["wq_a"] = dr_.uniform(d, qr, bound=1.5 / math.sqrt(d))
        p["q_a_norm"] = dr_.gain(qr)
        p["wq_b"] = dr_.uniform(qr, H * (nope + dr), bound=qk / math.sqrt(qr))
    p["wkv_a"] = dr_.uniform(d, r + dr, bound=1.5 / math.sqrt(d))
    p["kv_a_norm"] = dr_.gain(r)
    p["wkv_b"] = dr_.uniform(r, H * (nope + dv), bound=qk / math.sqrt(r))
    p["wo"] = dr_.uniform(H * dv, d, bound=1 / math.sqrt(H * dv))
    return p


def block_params(dr_, d, f, **g):
    p = {"attn_norm": dr_.gain(d), "mlp_norm": dr_.gain(d)}
    p.update(mla_params(dr_, d, **g))
    p.update({"w_gate": dr_.uniform(d, f, bound=1.5 / math.sqrt(d)), "w_up": dr_.uniform(d, f, bound=1.5 / math.sqrt(d)),
              "w_down": dr_.uniform(f, d, bound=1 / math.sqrt(f))})
    return p


# --- cases -------------------------------------------------------------------------------------

def rope_case(seed, base):
    b, n, heads, nope, width = 2, 9, 3, 4, 6  # the rope slice of every head [nope | rope]
    dr = Draw(seed)
    t = {"x": dr.randn(b * n, heads * (nope + width))}
    dout = dr.randn(b * n, heads * (nope + width))
    leaf = leaves(t)
    x = leaf["x"].reshape(b, n, heads, nope + width)
    out = torch.cat([x[..., :nope], rope_adjacent(x[..., nope:], base)], -1).reshape(b * n, -1)
    sizes = {"batch": b, "n": n, "heads": heads, "nope": nope, "width": width, "base": base}
    return sizes, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


def dims_of(H, nope, dr, dv, r, qr):
    return {"H": H, "nope": nope, "dr": dr, "dv": dv, "r": r, "qr": qr}


def mla_case(seed, H, nope, dr, dv, r, qr):
    b, n, d, base = 2, 6, 8, 10000.0
    g = dims_of(H, nope, dr, dv, r, qr)
    rng = Draw(seed)
    t = {"x": rng.randn(b * n, d), **mla_params(rng, d, **g)}
    dout = rng.randn(b * n, d)
    leaf = leaves(t)
    p = {k: v for k, v in leaf.items() if k != "x"}
    out = mla(leaf["x"].reshape(b, n, d), p, H, nope, dr, dv, r, base).reshape(b * n, d)
    sizes = {"batch": b, "n": n, "d": d, "h": H, "nope": nope, "rope": dr, "dv": dv, "r": r, "qr": qr, "base": base}
    return sizes, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


def block_case(seed, H, nope, dr, dv, r, qr):
    b, n, d, f, base = 2, 6, 8, 12, 10000.0
    rng = Draw(seed)
    t = {"x": rng.randn(b * n, d), **block_params(rng, d, f, **dims_of(H, nope, dr, dv, r, qr))}
    dout = rng.randn(b * n, d)
    leaf = leaves(t)
    p = {k: v for k, v in leaf.items() if k != "x"}
    dims = {"H": H, "nope": nope, "dr": dr, "dv": dv, "r": r, "base": base}
    out = block(leaf["x"].reshape(b, n, d), p, dims).reshape(b * n, d)
    sizes = {"batch": b, "n": n, "d": d, "h": H, "nope": nope, "rope": dr, "dv": dv, "r": r, "qr": qr, "f": f,
             "base": base, "eps": EPS}
    return sizes, {**t, "dout": dout, "out": out, **backward(out, dout.to(F64), leaf)}


# Hugging Face names of one layer's tensors and the trainer-layout parameter each is (matrices
# transposed: HF stores (out, in)).
def hf_layer(qr):
    q = ([("self_attn.q_proj.weight", "wq")] if qr == 0 else
         [("self_attn.q_a_proj.weight", "wq_a"), ("self_attn.q_a_layernorm.weight", "q_a_norm"),
          ("self_attn.q_b_proj.weight", "wq_b")])
    return [("input_layernorm.weight", "attn_norm")] + q + [
        ("self_attn.kv_a_proj_with_mqa.weight", "wkv_a"), ("self_attn.kv_a_layernorm.weight", "kv_a_norm"),
        ("self_attn.kv_b_proj.weight", "wkv_b"), ("self_attn.o_proj.weight", "wo"),
        ("post_attention_layernorm.weight", "mlp_norm"), ("mlp.gate_proj.weight", "w_gate"),
        ("mlp.up_proj.weight", "w_up"), ("mlp.down_proj.weight", "w_down")]


def model_case(seed, H, nope, dr, dv, r, qr, tied):
    b, n, d, f, v, layers, base = 2, 6, 8, 12, 11, 2, 10000.0
    rng = Draw(seed)
    hf = {"model.embed_tokens.weight": rng.uniform(v, d, bound=0.5)}
    for i in range(layers):
        p = block_params(rng, d, f, **dims_of(H, nope, dr, dv, r, qr))
        for name, key in hf_layer(qr):
            hf[f"model.layers.{i}.{name}"] = p[key].T.contiguous() if p[key].dim() == 2 else p[key]
    hf["model.norm.weight"] = rng.gain(d)
    if not tied:
        hf["lm_head.weight"] = rng.uniform(v, d, bound=1 / math.sqrt(d))
    ids = rng.ints(v, b, n)
    targets = rng.ints(v, b, n)
    mask = (rng.ints(4, b, n) > 0).to(torch.float32)
    w = leaves(hf)
    x = w["model.embed_tokens.weight"][ids]                                              # (B, N, D)
    dims = {"H": H, "nope": nope, "dr": dr, "dv": dv, "r": r, "base": base}
    for i in range(layers):
        p = {key: (w[f"model.layers.{i}.{name}"].T if w[f"model.layers.{i}.{name}"].dim() == 2
                   else w[f"model.layers.{i}.{name}"]) for name, key in hf_layer(qr)}
        x = block(x, p, dims)
    head = w["model.embed_tokens.weight"] if tied else w["lm_head.weight"]
    logits = rms_norm(x, w["model.norm.weight"]) @ head.T                                 # (B, N, V)
    ce = torch.nn.functional.cross_entropy(logits.reshape(b * n, v), targets.reshape(b * n), reduction="none")
    m = mask.reshape(b * n).to(F64)
    loss = (ce * m).sum() / m.sum()
    grads = torch.autograd.grad(loss, list(w.values()))
    sizes = {"batch": b, "n": n, "d": d, "h": H, "nope": nope, "rope": dr, "dv": dv, "r": r, "qr": qr, "f": f,
             "vocab": v, "layers": layers, "base": base, "eps": EPS, "tied": tied}
    t = {**hf, "ids": ids.to(torch.float32), "targets": targets.to(torch.float32), "mask": mask,
         "logits": logits.reshape(b * n, v), "loss": loss.reshape(1)}
    t.update({"grad." + k: g for k, g in zip(w, grads)})
    return sizes, t


#        name                       kind            make(seed)         H  nope rope dv  r  qr
CASES = [
    ("rope_adjacent_base10000", "rope_adjacent", lambda s: rope_case(s, 10000.0)),
    ("rope_adjacent_base50", "rope_adjacent", lambda s: rope_case(s, 50.0)),
    ("mla", "mla", lambda s: mla_case(s, 2, 4, 4, 4, 6, 0)),
    ("mla_vhead6_qlora", "mla", lambda s: mla_case(s, 3, 2, 4, 6, 5, 7)),
    ("block", "block", lambda s: block_case(s, 2, 4, 4, 4, 6, 0)),
    ("block_vhead3_qlora", "block", lambda s: block_case(s, 2, 4, 2, 3, 6, 5)),
    ("model_untied", "model", lambda s: model_case(s, 2, 4, 4, 4, 6, 0, False)),
    ("model_tied", "model", lambda s: model_case(s, 2, 4, 4, 4, 6, 0, True)),
    ("model_qlora_vhead6_tied", "model", lambda s: model_case(s, 3, 2, 4, 6, 5, 7, True)),
    ("model_qlora_untied", "model", lambda s: model_case(s, 2, 4, 2, 4, 6, 5, False)),
]


def build(b64):
    cases = []
    for i, (name, kind, make) in enumerate(CASES, start=1):
        sizes, tensors = make(2000 + i)
        cases.append({"name": name, "kind": kind, "sizes": sizes,
                      "tensors": {k: {"shape": list(t.shape), "data": b64(t)} for k, t in tensors.items()}})
        out = tensors.get("out", tensors.get("logits"))
        print(f"{name:28s} max|out| = {out.abs().max().item():.6f}")
    return {
        "version": 1,
        "generator": "scripts/gen_fixtures.py (scripts/train_deepseek_fixtures.py)",
        "torch": torch.__version__,
        "tolerance": {"relative": 1e-4, "definition": "max|got-ref| / max|ref| per tensor"},
        "cases": cases,
    }


if __name__ == "__main__":
    import gen_fixtures
    doc = build(gen_fixtures.b64)
    gen_fixtures.write(OUT_PATH, doc, len(doc["cases"]))
