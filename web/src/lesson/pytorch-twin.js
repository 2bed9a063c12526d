// pytorch-twin.js: the PyTorch code a learner writes next, generated for the playground's current
// settings, and the .safetensors file (input, weights, the page's own output) that code checks itself on.
//
// The generated program runs with only PyTorch (>= 1.13, Debian 12's python3-torch) and NumPy, and
// prints exactly one line: `max abs diff vs the page: <number>`. Facts it relies on are checked in
// ../shared/reference/pytorch-twin.md: nn.MultiheadAttention stores (d_out, d_in) weights, so ours
// (d_in, d_out) go in transposed; F.scaled_dot_product_attention exists from 2.0 and takes
// enable_gqa from 2.5; query heads are grouped contiguously (repeat_interleave semantics).
import { writeSafetensors } from './safetensors.js';

export const TWIN_FILE = 'attention-playground.safetensors';

/** Weight names per variant, in the order the API lists them. */
export function weightNames(spec) {
  if (spec.variant !== 'mla') return ['wq', 'wk', 'wv', 'wo'];
  return spec.ropeDim > 0 ? ['wq', 'wDkv', 'wUk', 'wUv', 'wo', 'wQr', 'wKr'] : ['wq', 'wDkv', 'wUk', 'wUv', 'wo'];
}

/** The weight shapes (d_in, d_out) of the API contract. */
export function weightShapes(spec) {
  const { dModel: D, nHeads: H, dHead: dh } = spec;
  const G = spec.nKvHeads;
  const r = spec.latentRank, dr = spec.ropeDim;
  const all = {
    wq: [D, H * dh], wk: [D, G * dh], wv: [D, G * dh], wo: [H * dh, D],
    wDkv: [D, r], wUk: [r, H * dh], wUv: [r, H * dh], wQr: [D, H * dr], wKr: [D, dr],
  };
  return Object.fromEntries(weightNames(spec).map((n) => [n, all[n]]));
}

/** RoPE base of a resolved spec, or null when there is no RoPE. */
function ropeBase(spec) {
  const on = spec.variant === 'mla' ? spec.ropeDim > 0 : Boolean(spec.rope);
  if (!on) return null;
  return typeof spec.rope === 'object' && spec.rope ? spec.rope.base : 10000;
}

/**
 * The .safetensors file for the twin: x, every weight, the page's output (and its attention maps).
 * @param {object} spec  resolved: variant, seqLen, dModel, nHeads, nKvHeads, dHead, causal, rope, latentRank, ropeDim
 * @param {{ x: Float32Array, parameters: Record<string, Float32Array>, output: Float32Array, attention?: Float32Array }} data
 * @param {Record<string, string>} [extraMetadata]  e.g. { text: 'the cat sat on the mat' }
 */
export function twinFile(spec, data, extraMetadata = {}) {
  const { seqLen: N, dModel: D, nHeads: H } = spec;
  const shapes = weightShapes(spec);
  const tensors = [{ name: 'x', shape: [N, D], data: data.x }];
  for (const [name, shape] of Object.entries(shapes)) tensors.push({ name, shape, data: data.parameters[name] });
  tensors.push({ name: 'output', shape: [N, D], data: data.output });
  if (data.attention) tensors.push({ name: 'attention', shape: [H, N, N], data: data.attention });
  return writeSafetensors(tensors, { format: 'pt', generator: 'Attention Playground', spec: JSON.stringify(spec), ...extraMetadata });
}

const py = (b) => (b ? 'True' : 'False');

function describe(spec) {
  const { variant, seqLen: N, dModel: D, nHeads: H, nKvHeads: G, dHead: dh } = spec;
  const parts = [`${variant.toUpperCase()}`, `N=${N}`, `D=${D}`, `H=${H}`];
  if (variant === 'gqa' || variant === 'mqa') parts.push(`G=${G}`);
  parts.push(`dh=${dh}`);
  if (variant === 'mla') parts.push(`r=${spec.latentRank}`, `dr=${spec.ropeDim}`);
  if (spec.causal) parts.push('causal');
  const base = ropeBase(spec);
  if (base !== null) parts.push(`RoPE base ${base}`);
  return parts.join(', ');
}

const LOADER = `def load(path):
    """name -> float32 tensor, with the safetensors package when installed, else a 10-line reader."""
    try:
        from safetensors.torch import load_file
        return load_file(path)
    except ImportError:
        with open(path, "rb") as f:
            b = f.read()
        n = struct.unpack("<Q", b[:8])[0]                    # header length, u64 little-endian
        header = json.loads(b[8:8 + n])
        out = {}
        for name, t in header.items():
            if name == "__metadata__":
                continue
            begin, _ = t["data_offsets"]
            a = np.frombuffer(b, dtype="<f4", count=int(np.prod(t["shape"])), offset=8 + n + begin)
            out[name] = torch.from_numpy(a.reshape(t["shape"]).copy())
        return out
`;

const ROPE = `def rope(t, base):
    """Rotary embedding, rotate-half (GPT-NeoX / Llama): t (..., N, w), position = row index."""
    n, w = t.shape[-2], t.shape[-1]
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    angle = pos * base ** (-2.0 * torch.arange(w // 2, dtype=torch.float64) / w)   # (N, w/2)
    cos, sin = torch.cos(angle).float(), torch.sin(angle).float()
    a, b = t[..., : w // 2], t[..., w // 2 :]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1)
`;

function header(spec) {
  return `# PyTorch twin of the Attention Playground: ${describe(spec)}.
# Needs PyTorch >= 1.13 and NumPy. Put ${TWIN_FILE} (the page's "Download" button) next to this
# file, or pass its path: python3 twin.py path/to/${TWIN_FILE}
# Our weights are (d_in, d_out): y = x @ W, as in the lesson.
import json
import math
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

PATH = sys.argv[1] if len(sys.argv) > 1 else "${TWIN_FILE}"

${LOADER}`;
}

function footer() {
  return `
diff = (out - t["output"]).abs().max().item()
print(f"max abs diff vs the page: {diff:.3g}")
`;
}

function mhaModule(spec) {
  const { seqLen: N, dModel: D, nHeads: H } = spec;
  return `
t = load(PATH)
x = t["x"]                                             # (N, D) = (${N}, ${D})
N, D, H = ${N}, ${D}, ${H}
CAUSAL = ${py(spec.causal)}

# MHA is exactly torch.nn.MultiheadAttention (no biases). PyTorch stores weights as (d_out, d_in)
# and computes x @ W.T, so ours go in transposed: in_proj_weight = [Wq; Wk; Wv]^T, out_proj = Wo^T.
mha = torch.nn.MultiheadAttention(D, H, bias=False, batch_first=True)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([t["wq"].T, t["wk"].T, t["wv"].T], dim=0))
    mha.out_proj.weight.copy_(t["wo"].T)

mask = torch.triu(torch.ones(N, N, dtype=torch.bool), diagonal=1) if CAUSAL else None   # True = masked
with torch.no_grad():
    out, maps = mha(x[None], x[None], x[None], attn_mask=mask, need_weights=True, average_attn_weights=False)
out, maps = out[0], maps[0]                            # (N, D), (H, N, N): the page's heatmaps
`;
}

function grouped(spec) {
  const { variant, seqLen: N, dModel: D, nHeads: H, nKvHeads: G, dHead: dh } = spec;
  const base = ropeBase(spec);
  const what = variant === 'mqa' ? 'MQA: one K/V head serves every query head'
    : variant === 'gqa' ? `GQA: each of the ${G} K/V heads serves a contiguous group of ${H / G} query heads`
      : `MHA written out (${base !== null ? 'RoPE' : 'dHead != D / H'} is not in nn.MultiheadAttention)`;
  return `${base !== null ? `\n${ROPE}` : ''}
t = load(PATH)
x = t["x"]                                             # (N, D) = (${N}, ${D})
N, D, H, G, dh = ${N}, ${D}, ${H}, ${G}, ${dh}
CAUSAL = ${py(spec.causal)}

# ${what}.
# 1. project, 2. split into heads: (N, heads*dh) -> (heads, N, dh)
q = (x @ t["wq"]).view(N, H, dh).transpose(0, 1)       # (H, N, dh)
k = (x @ t["wk"]).view(N, G, dh).transpose(0, 1)       # (G, N, dh)
v = (x @ t["wv"]).view(N, G, dh).transpose(0, 1)       # (G, N, dh)
${base !== null ? `q, k = rope(q, ${base}), rope(k, ${base})                # positions enter q and k only\n` : ''}
def attend_repeat_interleave(q, k, v):
    """3. attend, the lesson's way: copy each K/V head for the H/G query heads it serves."""
    k = k.repeat_interleave(H // G, dim=0)             # (H, N, dh)
    v = v.repeat_interleave(H // G, dim=0)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)   # (H, N, N)
    if CAUSAL:
        scores = scores.masked_fill(torch.triu(torch.ones(N, N, dtype=torch.bool), 1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v           # (H, N, dh)

version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
if hasattr(F, "scaled_dot_product_attention") and version >= (2, 5):
    # PyTorch >= 2.5: the fused kernel groups query heads itself (the same contiguous groups).
    heads = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=CAUSAL, enable_gqa=True)[0]
else:
    # PyTorch < 2.5 has no enable_gqa: the repeat_interleave form computes the same thing.
    heads = attend_repeat_interleave(q, k, v)

# 4. concat the heads back: (H, N, dh) -> (N, H*dh), 5. output projection
concat = heads.transpose(0, 1).reshape(N, H * dh)
out = concat @ t["wo"]                                 # (N, D)
`;
}

function latent(spec) {
  const { seqLen: N, dModel: D, nHeads: H, dHead: dh, latentRank: r, ropeDim: dr } = spec;
  const base = ropeBase(spec);
  return `${dr > 0 ? `\n${ROPE}` : ''}
t = load(PATH)
x = t["x"]                                             # (N, D) = (${N}, ${D})
N, D, H, dh, r, dr = ${N}, ${D}, ${H}, ${dh}, ${r}, ${dr}
CAUSAL = ${py(spec.causal)}

# MLA: keys and values are read from one small latent per token (plus a shared RoPE key).
c = x @ t["wDkv"]                                      # (N, r) the latent
q = (x @ t["wq"]).view(N, H, dh).transpose(0, 1)       # (H, N, dh)
k = (c @ t["wUk"]).view(N, H, dh).transpose(0, 1)      # (H, N, dh) decompressed keys
v = (c @ t["wUv"]).view(N, H, dh).transpose(0, 1)      # (H, N, dh) decompressed values
scores = q @ k.transpose(-1, -2)                       # (H, N, N)
${dr > 0 ? `qr = rope((x @ t["wQr"]).view(N, H, dr).transpose(0, 1), ${base})   # (H, N, dr)
kr = rope(x @ t["wKr"], ${base})                       # (N, dr): one RoPE key shared by all heads
scores = scores + qr @ kr.T                            # decoupled RoPE: positions outside the latent
# A KV cache keeps only [c | kr]: ${r} + ${dr} numbers per token and layer.
` : `# A KV cache keeps only c: ${r} numbers per token and layer.
`}scores = scores / math.sqrt(dh + dr)
if CAUSAL:
    scores = scores.masked_fill(torch.triu(torch.ones(N, N, dtype=torch.bool), 1), float("-inf"))
heads = torch.softmax(scores, dim=-1) @ v              # (H, N, dh)
concat = heads.transpose(0, 1).reshape(N, H * dh)      # (N, H*dh)
out = concat @ t["wo"]                                 # (N, D)
`;
}

/**
 * Python source for a resolved spec.
 * @param {object} spec  resolved: variant, seqLen, dModel, nHeads, nKvHeads, dHead, causal, rope, latentRank, ropeDim
 * @returns {string}
 */
export function pytorchCode(spec) {
  let body;
  if (spec.variant === 'mla') body = latent(spec);
  else if (spec.variant === 'mha' && !spec.rope && spec.dHead * spec.nHeads === spec.dModel) body = mhaModule(spec);
  else body = grouped(spec);
  return header(spec) + body + footer();
}
