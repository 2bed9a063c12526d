#!/usr/bin/env python3
"""Generate the golden attention fixtures: tests/fixtures/attention_golden.json (and the trainer's
Llama layers, blocks and models: tests/fixtures/train_llama_golden.json, scripts/train_fixtures.py;
its DeepSeek-V2 ones: tests/fixtures/train_deepseek_golden.json, scripts/train_deepseek_fixtures.py).

Run from the repository root with Debian's Python (it has torch and numpy):

    /usr/bin/python3 scripts/gen_fixtures.py

It writes the JSON file and prints one line per case (name, max |output|). The output is
deterministic: running the script twice gives a byte-identical file (for the same torch version,
which is recorded in the file).

Conventions (the same as the JS API contract, docs/api.md)
----------------------------------------------------
* Every matrix is row-major float32. Weights use the layout (d_in, d_out): Y = X @ W; X is (N, D).
* Head h of a projection owns columns [h*dh, (h+1)*dh). Query head h reads K/V head
  floor(h / (H/G)) -- PyTorch ``repeat_interleave`` along the head axis.
* Scores are (q . k) / sqrt(dh), softmax over keys; ``causal`` masks key j > i for query i.
* RoPE is rotate-half (GPT-NeoX / HF Llama): for a vector of even width w at position p (from 0),
  the pairs (i, i + w/2), i < w/2, are rotated by p * base^(-2i/w):
      out[i]       = x[i] cos - x[i+w/2] sin
      out[i + w/2] = x[i+w/2] cos + x[i] sin
  base 10000 unless given. For MHA/MQA/GQA with ``rope`` it is applied to every q head and every k
  head (width dh) after the projection, before the scores. Angles are computed in float64.
* MLA (per head h):
      c    = X @ wDkv                (N, r)
      kr   = rope(X @ wKr)           (N, dr)   shared by all heads
      q_h  = X @ wq[:, h]            (N, dh)
      k_h  = c @ wUk[:, h],  v_h = c @ wUv[:, h]
      qr_h = rope((X @ wQr)[:, h*dr:(h+1)*dr])
      s_h  = (q_h k_h^T + qr_h kr^T) / sqrt(dh + dr)
      out  = concat_h(softmax(s_h) v_h) @ wo
  With ropeDim 0 there is no wQr / wKr and the scale is 1/sqrt(dh).

Inputs
------
Case number k (1-based, the position in CASES) seeds a ``torch.Generator`` with ``manual_seed(k)``.
From it, in this order, all in float32: x ~ N(0, 1) of shape (N, D) (``torch.randn``), then every
weight in the order of its JS API name (MHA/MQA/GQA: wq wk wv wo; MLA: wq wDkv wUk wUv wo [wQr wKr])
~ U(-1/sqrt(d_in), 1/sqrt(d_in)) (``(torch.rand * 2 - 1) * bound``).

References
----------
The reference is computed in float64 from those float32 values and stored as float32.
* "torch.nn.MultiheadAttention": MHA cases with dHead == D/H and no RoPE. A float64
  ``nn.MultiheadAttention(D, H, bias=False, batch_first=True)`` with
  in_proj_weight = cat(wq.T, wk.T, wv.T) and out_proj.weight = wo.T, called with
  need_weights=True, average_attn_weights=False and, when causal, a boolean attn_mask that is True
  (masked) strictly above the diagonal. The module is left in training mode (dropout is 0) so that
  the classic (non fast-path) implementation is used. The written-out computation below is also run
  and must agree to 1e-10 (a self-check of this generator).
* "written out (repeat_interleave)": GQA/MQA and MHA cases with dHead != D/H; K and V heads are
  expanded with ``repeat_interleave(H // G, dim=head_axis)``.
* "written out (repeat_interleave, RoPE)": the same with RoPE on q and k.
* "written out (MLA)": the MLA formulas above. Self-check: the "absorbed" form (scores
  (q_h wUk_h^T) c^T + qr_h kr^T, output sum_h softmax(s_h) c (wUv_h wo_h)) agrees to 1e-9.
Every case also checks that each attention row sums to 1 and, when causal, that the weights above
the diagonal are exactly 0.

File format
-----------
    { "version": 1,
      "generator": "scripts/gen_fixtures.py",
      "torch": torch.__version__,
      "tolerance": {"relative": 1e-4, "definition": "max|got-ref| / max|ref| per tensor"},
      "cases": [ {
          "name": "mha_basic",
          "reference": one of the strings above,
          "spec": { "variant", "seqLen", "dModel", "nHeads", "nKvHeads", "dHead", "causal",
                    "rope" (mha/mqa/gqa: false | true | {"base": b}),
                    "latentRank", "ropeDim" (mla only) },     -- JS API field names, resolved values
                                                                 (MLA: nKvHeads = nHeads)
          "x": base64 of float32 little-endian, N*D,
          "weights": { "wq": base64, ... },                   -- JS API names
          "shapes": { "x": [N, D], "wq": [D, H*dh], ..., "output": [N, D], "attention": [H, N, N] },
          "output": base64 float32, N*D,
          "attention": base64 float32, H*N*N, head-major: [h*N*N + i*N + j]
      } ] }
"""

import base64
import math
import os
import sys

import numpy as np
import torch

OUT_PATH = os.path.join("tests", "fixtures", "attention_golden.json")
STAGES_PATH = os.path.join("tests", "fixtures", "intermediates_golden.json")
F64 = torch.float64

# (name, spec). Specs use JS API field names; nKvHeads / dHead are resolved below when omitted.
CASES = [
    ("mha_basic", dict(variant="mha", seqLen=6, dModel=16, nHeads=4, causal=False)),
    ("mha_causal", dict(variant="mha", seqLen=7, dModel=12, nHeads=3, causal=True)),
    ("mha_one_token", dict(variant="mha", seqLen=1, dModel=8, nHeads=2, causal=False)),
    ("mha_dhead5_causal", dict(variant="mha", seqLen=5, dModel=12, nHeads=4, dHead=5, causal=True)),
    ("gqa_causal", dict(variant="gqa", seqLen=9, dModel=24, nHeads=6, nKvHeads=2, causal=True)),
    ("gqa_dhead6", dict(variant="gqa", seqLen=13, dModel=20, nHeads=4, nKvHeads=2, dHead=6, causal=False)),
    ("mqa_basic", dict(variant="mqa", seqLen=8, dModel=16, nHeads=4, causal=False)),
    ("mqa_dhead7_causal", dict(variant="mqa", seqLen=11, dModel=18, nHeads=3, dHead=7, causal=True)),
    ("mha_rope_causal", dict(variant="mha", seqLen=10, dModel=16, nHeads=2, rope=True, causal=True)),
    ("gqa_rope_base500_causal", dict(variant="gqa", seqLen=9, dModel=32, nHeads=8, nKvHeads=4,
                                     rope={"base": 500}, causal=True)),
    ("mla_norope_causal", dict(variant="mla", seqLen=7, dModel=16, nHeads=4, dHead=4, latentRank=6,
                               ropeDim=0, causal=True)),
    ("mla_rope4_causal", dict(variant="mla", seqLen=9, dModel=24, nHeads=3, dHead=8, latentRank=10,
                              ropeDim=4, causal=True)),
    ("mla_one_token", dict(variant="mla", seqLen=1, dModel=12, nHeads=2, dHead=6, latentRank=5,
                           ropeDim=2, causal=False)),
    ("mla_rope6_rank3", dict(variant="mla", seqLen=6, dModel=10, nHeads=2, dHead=5, latentRank=3,
                             ropeDim=6, causal=False)),
    ("gqa_n33_causal", dict(variant="gqa", seqLen=33, dModel=64, nHeads=8, nKvHeads=2, causal=True)),
    ("gqa_n70_rope_causal", dict(variant="gqa", seqLen=70, dModel=48, nHeads=6, nKvHeads=3, dHead=10,
                                 rope=True, causal=True)),
    ("mha_n40", dict(variant="mha", seqLen=40, dModel=32, nHeads=4, causal=False)),
    ("mla_n37_causal", dict(variant="mla", seqLen=37, dModel=32, nHeads=4, dHead=8, latentRank=12,
                            ropeDim=4, causal=True)),
    ("mqa_rope_one_token", dict(variant="mqa", seqLen=1, dModel=16, nHeads=4, rope=True, causal=False)),
    # The brief asked for dHead 5 here, but RoPE needs an even width, so dHead is 6 (!= D/H = 5).
    ("gqa_rope_base10000_dhead6", dict(variant="gqa", seqLen=18, dModel=30, nHeads=6, nKvHeads=3, dHead=6,
                                       rope={"base": 10000}, causal=False)),
]

# Cases whose every stage (forward with returnIntermediates) is also stored, in STAGES_PATH.
STAGE_CASES = ["mha_basic", "mha_causal", "gqa_causal", "mqa_dhead7_causal", "gqa_rope_base500_causal",
               "mla_norope_causal", "mla_rope4_causal", "mla_rope6_rank3"]

SPEC_KEYS_COMMON = ["variant", "seqLen", "dModel", "nHeads", "nKvHeads", "dHead", "causal"]


def resolve(spec):
    """Fill in nKvHeads / dHead / rope / ropeDim with their resolved values, in a fixed key order."""
    v, D, H = spec["variant"], spec["dModel"], spec["nHeads"]
    s = dict(spec)
    if "dHead" not in s:
        assert D % H == 0, f"dModel {D} not divisible by nHeads {H}"
        s["dHead"] = D // H
    if v == "mha":
        s.setdefault("nKvHeads", H)
        assert s["nKvHeads"] == H
    elif v == "mqa":
        s.setdefault("nKvHeads", 1)
        assert s["nKvHeads"] == 1
    elif v == "gqa":
        assert H % s["nKvHeads"] == 0
    elif v == "mla":
        s.setdefault("nKvHeads", H)  # every head has its own (reconstructed) k and v
        s.setdefault("ropeDim", 0)
    else:
        raise ValueError(v)
    out = {k: s[k] for k in SPEC_KEYS_COMMON}
    if v == "mla":
        out["latentRank"] = s["latentRank"]
        out["ropeDim"] = s["ropeDim"]
        assert out["ropeDim"] % 2 == 0, "ropeDim must be even"
    else:
        out["rope"] = s.get("rope", False)
        if out["rope"] is not False:
            assert out["dHead"] % 2 == 0, "RoPE needs an even dHead"
    return out


def weight_shapes(s):
    """JS API weight names -> (d_in, d_out), in draw order."""
    D, H, dh = s["dModel"], s["nHeads"], s["dHead"]
    if s["variant"] == "mla":
        r, dr = s["latentRank"], s["ropeDim"]
        shapes = [("wq", (D, H * dh)), ("wDkv", (D, r)), ("wUk", (r, H * dh)), ("wUv", (r, H * dh)),
                  ("wo", (H * dh, D))]
        if dr > 0:
            shapes += [("wQr", (D, H * dr)), ("wKr", (D, dr))]
        return shapes
    G = s["nKvHeads"]
    return [("wq", (D, H * dh)), ("wk", (D, G * dh)), ("wv", (D, G * dh)), ("wo", (H * dh, D))]


def draw_inputs(seed, s):
    g = torch.Generator()
    g.manual_seed(seed)
    x = torch.randn((s["seqLen"], s["dModel"]), generator=g, dtype=torch.float32)
    weights = {}
    for name, (din, dout) in weight_shapes(s):
        bound = 1.0 / math.sqrt(din)
        u = torch.rand((din, dout), generator=g, dtype=torch.float32)
        weights[name] = (u * 2.0 - 1.0) * bound
    return x, weights


# ---------------------------------------------------------------------------------------------
# Reference computations (float64)
# ---------------------------------------------------------------------------------------------

def rope_base(r):
    if r is False:
        return None
    if r is True:
        return 10000.0
    return float(r["base"])


def apply_rope(t, base):
    """Rotate-half RoPE on the last axis of t (..., N, w); the position is the second-last index."""
    N, w = t.shape[-2], t.shape[-1]
    half = w // 2
    pos = torch.arange(N, dtype=F64).unsqueeze(1)                      # (N, 1)
    inv = base ** (-2.0 * torch.arange(half, dtype=F64) / w)            # (half,)
    ang = pos * inv                                                     # (N, half)
    cos, sin = torch.cos(ang), torch.sin(ang)
    a, b = t[..., :half], t[..., half:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)


def causal_mask(N):
    """Boolean (N, N), True strictly above the diagonal (masked)."""
    return torch.triu(torch.ones(N, N, dtype=torch.bool), diagonal=1)


def softmax_scores(scores, causal):
    if causal:
        scores = scores.masked_fill(causal_mask(scores.shape[-1]), float("-inf"))
    return torch.softmax(scores, dim=-1)


def split_heads(y, n, dh):
    """(N, n*dh) -> (n, N, dh): head h owns columns [h*dh, (h+1)*dh)."""
    N = y.shape[0]
    return y.reshape(N, n, dh).transpose(0, 1)


def merge_heads(y):
    """(n, N, dh) -> (N, n*dh)."""
    n, N, dh = y.shape
    return y.transpose(0, 1).reshape(N, n * dh)


def written_out_mha(s, x, w):
    """MHA / MQA / GQA, with optional RoPE, K/V expanded by repeat_interleave."""
    H, G, dh = s["nHeads"], s["nKvHeads"], s["dHead"]
    q = split_heads(x @ w["wq"], H, dh)                                 # (H, N, dh)
    k = split_heads(x @ w["wk"], G, dh)                                 # (G, N, dh)
    v = split_heads(x @ w["wv"], G, dh)
    base = rope_base(s["rope"])
    if base is not None:
        q = apply_rope(q, base)
        k = apply_rope(k, base)
    k = k.repeat_interleave(H // G, dim=0)                              # (H, N, dh)
    v = v.repeat_interleave(H // G, dim=0)
    p = softmax_scores(q @ k.transpose(-1, -2) / math.sqrt(dh), s["causal"])  # (H, N, N)
    out = merge_heads(p @ v) @ w["wo"]
    return out, p


def torch_mha(s, x, w):
    D, H = s["dModel"], s["nHeads"]
    m = torch.nn.MultiheadAttention(D, H, bias=False, batch_first=True, dtype=F64)
    m.train()  # dropout is 0; training mode keeps the classic (non fast-path) implementation
    with torch.no_grad():
        m.in_proj_weight.copy_(torch.cat([w["wq"].T, w["wk"].T, w["wv"].T], dim=0))
        m.out_proj.weight.copy_(w["wo"].T)
        xb = x.unsqueeze(0)
        mask = causal_mask(s["seqLen"]) if s["causal"] else None
        out, p = m(xb, xb, xb, need_weights=True, attn_mask=mask, average_attn_weights=False)
    return out[0], p[0]


def mla(s, x, w):
    H, dh, r, dr = s["nHeads"], s["dHead"], s["latentRank"], s["ropeDim"]
    c = x @ w["wDkv"]                                                   # (N, r)
    q = split_heads(x @ w["wq"], H, dh)                                 # (H, N, dh)
    k = split_heads(c @ w["wUk"], H, dh)
    v = split_heads(c @ w["wUv"], H, dh)
    scores = q @ k.transpose(-1, -2)
    if dr > 0:
        kr = apply_rope(x @ w["wKr"], 10000.0)                          # (N, dr)
        qr = apply_rope(split_heads(x @ w["wQr"], H, dr), 10000.0)      # (H, N, dr)
        scores = scores + qr @ kr.T
    p = softmax_scores(scores / math.sqrt(dh + dr), s["causal"])
    out = merge_heads(p @ v) @ w["wo"]
    return out, p


def mla_absorbed(s, x, w):
    """Independent check: wUk folded into the query side, wUv @ wo into the output side."""
    H, dh, dr = s["nHeads"], s["dHead"], s["ropeDim"]
    D = s["dModel"]
    c = x @ w["wDkv"]
    out = torch.zeros(s["seqLen"], D, dtype=F64)
    if dr > 0:
        kr = apply_rope(x @ w["wKr"], 10000.0)
        xqr = x @ w["wQr"]
    for h in range(H):
        cols = slice(h * dh, (h + 1) * dh)
        q_h = x @ w["wq"][:, cols]                                      # (N, dh)
        q_lat = q_h @ w["wUk"][:, cols].T                               # (N, r)
        sc = q_lat @ c.T
        if dr > 0:
            qr_h = apply_rope(xqr[:, h * dr:(h + 1) * dr], 10000.0)
            sc = sc + qr_h @ kr.T
        p = softmax_scores(sc / math.sqrt(dh + dr), s["causal"])
        w_out = w["wUv"][:, cols] @ w["wo"][cols, :]                    # (r, D)
        out = out + (p @ c) @ w_out
    return out


def reference(s, x32, w32):
    x = x32.to(F64)
    w = {k: t.to(F64) for k, t in w32.items()}
    v = s["variant"]
    if v == "mla":
        out, p = mla(s, x, w)
        alt = mla_absorbed(s, x, w)
        err = (out - alt).abs().max().item()
        assert err <= 1e-9, f"MLA absorbed form differs by {err}"
        return "written out (MLA)", out, p
    if v == "mha" and s["dHead"] * s["nHeads"] == s["dModel"] and s["rope"] is False:
        out, p = torch_mha(s, x, w)
        out2, p2 = written_out_mha(s, x, w)
        err = max((out - out2).abs().max().item(), (p - p2).abs().max().item())
        assert err <= 1e-10, f"nn.MultiheadAttention and the written-out version differ by {err}"
        return "torch.nn.MultiheadAttention", out, p
    out, p = written_out_mha(s, x, w)
    ref = "written out (repeat_interleave, RoPE)" if s["rope"] is not False else "written out (repeat_interleave)"
    return ref, out, p


def stages(s, x32, w32):
    """Every stage of the lesson (the JS API's intermediates, core/include/attn/intermediates.hpp), float64.

    Written out with PyTorch ops, independently of the C++ code: split_heads / repeat_interleave /
    merge_heads, and for MLA the latent, the decoupled RoPE parts, the cache row and the absorbed query.
    The last stage's product with wo must equal reference()'s output (self-check in main)."""
    x = x32.to(F64)
    w = {k: t.to(F64) for k, t in w32.items()}
    H, dh, N = s["nHeads"], s["dHead"], s["seqLen"]
    out = {}
    if s["variant"] != "mla":
        G = s["nKvHeads"]
        out["q"], out["k"], out["v"] = x @ w["wq"], x @ w["wk"], x @ w["wv"]
        qh, kh, vh = split_heads(out["q"], H, dh), split_heads(out["k"], G, dh), split_heads(out["v"], G, dh)
        base = rope_base(s["rope"])
        if base is not None:
            qh, kh = apply_rope(qh, base), apply_rope(kh, base)
        out["qHeads"], out["kHeads"], out["vHeads"] = qh, kh, vh
        k_all, v_all = kh.repeat_interleave(H // G, dim=0), vh.repeat_interleave(H // G, dim=0)
        scale = math.sqrt(dh)
    else:
        r, dr = s["latentRank"], s["ropeDim"]
        out["q"] = x @ w["wq"]
        out["c"] = x @ w["wDkv"]
        out["k"], out["v"] = out["c"] @ w["wUk"], out["c"] @ w["wUv"]
        qh, kh, vh = split_heads(out["q"], H, dh), split_heads(out["k"], H, dh), split_heads(out["v"], H, dh)
        cache = out["c"]
        if dr > 0:
            qr = apply_rope(split_heads(x @ w["wQr"], H, dr), 10000.0)          # (H, N, dr)
            kr = apply_rope(x @ w["wKr"], 10000.0)                              # (N, dr)
            out["qRope"], out["kRope"] = merge_heads(qr), kr
            qh = torch.cat([qh, qr], dim=-1)
            kh = torch.cat([kh, kr.unsqueeze(0).expand(H, N, dr)], dim=-1)
            cache = torch.cat([cache, kr], dim=-1)
        out["qHeads"], out["kHeads"], out["vHeads"] = qh, kh, vh
        out["cache"] = cache
        out["qAbsorbed"] = torch.stack([split_heads(out["q"], H, dh)[h] @ w["wUk"][:, h * dh:(h + 1) * dh].T
                                        for h in range(H)])                     # (H, N, r)
        k_all, v_all = kh, vh
        scale = math.sqrt(dh + dr)
    out["scores"] = qh @ k_all.transpose(-1, -2) / scale                        # (H, N, N), unmasked
    out["attention"] = softmax_scores(out["scores"], s["causal"])
    out["heads"] = out["attention"] @ v_all                                     # (H, N, dh)
    out["concat"] = merge_heads(out["heads"])                                   # (N, H*dh)
    return out, out["concat"] @ w["wo"]


def check_attention(name, s, p):
    H, N = s["nHeads"], s["seqLen"]
    assert tuple(p.shape) == (H, N, N), (name, tuple(p.shape))
    rows = p.sum(dim=-1)
    assert (rows - 1).abs().max().item() <= 1e-12, f"{name}: attention rows do not sum to 1"
    assert (p >= 0).all()
    if s["causal"]:
        assert (p[:, causal_mask(N)] == 0).all(), f"{name}: nonzero weight above the diagonal"


# ---------------------------------------------------------------------------------------------
# Serialisation
# ---------------------------------------------------------------------------------------------

def b64(t):
    a = np.ascontiguousarray(t.detach().to(torch.float32).numpy(), dtype="<f4")
    return base64.b64encode(a.tobytes()).decode("ascii")


def dump(obj, indent=0):
    """JSON with objects on their own lines; lists of scalars and small flat objects kept inline."""
    import json
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        if all(not isinstance(v, (dict, list)) for v in obj.values()) and len(obj) <= 2:
            return json.dumps(obj)
        items = [f'{pad}  {json.dumps(k)}: {dump(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj):
            return json.dumps(obj)
        items = [pad + "  " + dump(v, indent + 1) for v in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj)


def build_case(index, name, raw):
    s = resolve(raw)
    x32, w32 = draw_inputs(index, s)
    ref, out, p = reference(s, x32, w32)
    N, D, H = s["seqLen"], s["dModel"], s["nHeads"]
    assert tuple(out.shape) == (N, D)
    check_attention(name, s, p)
    # The stored float32 attention must keep the same properties.
    p32 = p.to(torch.float32)
    if s["causal"]:
        assert (p32[:, causal_mask(N)] == 0).all()
    assert (p32.to(F64).sum(-1) - 1).abs().max().item() < 1e-5
    shapes = {"x": [N, D]}
    for k, t in w32.items():
        shapes[k] = list(t.shape)
    shapes["output"] = [N, D]
    shapes["attention"] = [H, N, N]
    case = {
        "name": name,
        "reference": ref,
        "spec": s,
        "x": b64(x32),
        "weights": {k: b64(t) for k, t in w32.items()},
        "shapes": shapes,
        "output": b64(out),
        "attention": b64(p),
    }
    return case, out.abs().max().item()


def main():
    torch.set_num_threads(1)  # keeps the float64 reductions' order fixed
    names = [n for n, _ in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    cases = []
    for i, (name, raw) in enumerate(CASES, start=1):
        case, mx = build_case(i, name, raw)
        cases.append(case)
        print(f"{name:28s} max|output| = {mx:.6f}")
    doc = {
        "version": 1,
        "generator": "scripts/gen_fixtures.py",
        "torch": torch.__version__,
        "tolerance": {"relative": 1e-4, "definition": "max|got-ref| / max|ref| per tensor"},
        "cases": cases,
    }
    write(OUT_PATH, doc, len(cases))

    # Every stage, for the cases in STAGE_CASES (x and weights are those of the same case above).
    staged = []
    for i, (name, raw) in enumerate(CASES, start=1):
        if name not in STAGE_CASES:
            continue
        s = resolve(raw)
        x32, w32 = draw_inputs(i, s)
        st, out = stages(s, x32, w32)
        _, ref_out, ref_p = reference(s, x32, w32)
        err = max((out - ref_out).abs().max().item(), (st["attention"] - ref_p).abs().max().item())
        assert err <= 1e-10, f"{name}: stages disagree with the reference by {err}"
        staged.append({"name": name,
                       "stages": {k: {"shape": list(t.shape), "data": b64(t)} for k, t in st.items()}})
        print(f"{name:28s} {len(st)} stages")
    assert len(staged) == len(STAGE_CASES), "a STAGE_CASES name is not in CASES"
    write(STAGES_PATH, {
        "version": 1,
        "generator": "scripts/gen_fixtures.py",
        "torch": torch.__version__,
        "tolerance": {"relative": 1e-4, "definition": "max|got-ref| / max|ref| per tensor"},
        "note": "forward(spec with returnIntermediates) of the attention_golden.json case of the same name",
        "cases": staged,
    }, len(staged))

    # The trainer's Llama block: its layers, blocks and whole models, forward and gradients.
    import train_fixtures
    doc = train_fixtures.build(b64)
    write(train_fixtures.OUT_PATH, doc, len(doc["cases"]))

    # The trainer's DeepSeek-V2 block (MLA): its layers, blocks and whole models, forward and gradients.
    import train_deepseek_fixtures
    doc = train_deepseek_fixtures.build(b64)
    write(train_deepseek_fixtures.OUT_PATH, doc, len(doc["cases"]))


def write(path, doc, n_cases):
    text = dump(doc) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"wrote {path}: {n_cases} cases, {len(text.encode('utf-8'))} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
