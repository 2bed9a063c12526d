#!/usr/bin/env python3
"""Tiny random Hugging Face checkpoints and their expected outputs: tests/fixtures/pretrained/.

Run from the repository root with Debian's Python (torch 1.13, numpy):

    /usr/bin/python3 scripts/gen_pretrained_fixtures.py

For every case it writes a folder in exact Hugging Face layout (`config.json`, `model.safetensors`,
or shards `model-0000k-of-0000n.safetensors` with `model.safetensors.index.json`) and
`expected.safetensors` with the token ids (`ids`, I32), the logits (`logits`, (N, V) F32) and every
layer's attention maps (`attentions.<layer>`, (H, N, N) F32), and `stages.safetensors` with the last
layer's attention stage by stage (`layer`, I32; then F32 tensors named as the core's layer stages,
core/include/attn/pretrained/layer_stages.hpp: `x`, `q`, `qRotated`, `scores` (-inf where masked), ...,
`output`). The output is deterministic (a
generator seeded per case) and the script prints one line per case.

The reference forward passes are written here, in PyTorch, from the eager attention paths of the
Hugging Face modeling files as described in reference/hf-models.md (transformers is not installed on
the machines of this project, so they cannot be imported): embeddings, pre-norm blocks, RMSNorm /
LayerNorm, rotate-half RoPE (llama family) or adjacent-pair RoPE (DeepSeek), Llama 3 and YaRN
frequency scaling, GQA by repeat_interleave, sliding windows, q/k norms (qwen3), biases, DeepSeek's
multi-head latent attention with and without query compression, GELU (tanh form) and SwiGLU MLPs, tied
or separate LM heads. They run in float64 on the exact values of the stored weights (16-bit weights
are widened, as a loader must do), and the results are stored as float32.

The random weights are scaled (the query and key projections by QK_GAIN) so that the maps are far from
uniform: each case asserts that the mean of the largest weight per row of the maps is above 0.4, or a
wrong RoPE or head mapping could pass unnoticed.
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'pretrained')
QK_GAIN = 2.5            # the query and key projections' standard deviation, times 1/sqrt(fan_in)
torch.set_default_dtype(torch.float64)

# ---------------------------------------------------------------------------------------------
# safetensors (huggingface/safetensors README: u64 LE header length, JSON header, data)

ST_DTYPES = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16', torch.int32: 'I32',
             torch.uint8: 'U8', torch.bool: 'BOOL'}
ST_SIZE = {'F32': 4, 'F16': 2, 'BF16': 2, 'I32': 4, 'U8': 1, 'BOOL': 1}


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: the raw bits
        return t.view(torch.int16).numpy().astype('<i2').tobytes()
    if t.dtype == torch.bool:
        return t.numpy().astype(np.uint8).tobytes()
    return t.numpy().astype(t.numpy().dtype.newbyteorder('<')).tobytes()


def write_safetensors(path, tensors):
    """Like safetensors' writer: sorted by dtype size (largest first), then name; header padded
    with spaces to a multiple of 8; metadata {"format": "pt"}."""
    names = sorted(tensors, key=lambda n: (-ST_SIZE[ST_DTYPES[tensors[n].dtype]], n))
    header, offset, blobs = {'__metadata__': {'format': 'pt'}}, 0, []
    for n in names:
        b = tensor_bytes(tensors[n])
        header[n] = {'dtype': ST_DTYPES[tensors[n].dtype], 'shape': list(tensors[n].shape),
                     'data_offsets': [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    text = json.dumps(header, separators=(',', ':')).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    return offset


# ---------------------------------------------------------------------------------------------
# the reference pieces (float64)

def rms_norm(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def rope_rotate_half(x, inv_freq, factor=1.0):
    """x (heads, N, d): pairs (i, i + d/2) turn by pos * inv_freq[i]."""
    pos = torch.arange(x.shape[-2], dtype=torch.float64)
    f = pos[:, None] * inv_freq[None, :]
    emb = torch.cat((f, f), dim=-1)
    return x * (emb.cos() * factor) + rotate_half(x) * (emb.sin() * factor)


def rope_adjacent(x, inv_freq, factor=1.0):
    """x (heads, N, d): pairs (2i, 2i + 1) turn by pos * inv_freq[i] (complex multiplication)."""
    pos = torch.arange(x.shape[-2], dtype=torch.float64)
    f = pos[:, None] * inv_freq[None, :]
    cos, sin = f.cos() * factor, f.sin() * factor
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).reshape(x.shape)


def default_inv_freq(d, theta):
    return 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))


def llama3_inv_freq(d, theta, s):
    inv = default_inv_freq(d, theta)
    old, low, high, factor = s['original_max_position_embeddings'], s['low_freq_factor'], s['high_freq_factor'], s['factor']
    wl = 2 * math.pi / inv
    out = torch.where(wl > old / low, inv / factor, inv)
    smooth = (old / wl - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wl < old / high) & ~(wl > old / low)
    return torch.where(medium, smoothed, out)


def yarn_mscale(scale, m=1.0):
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def yarn_inv_freq(d, theta, s, max_pos):
    factor = s['factor']
    ompe = s.get('original_max_position_embeddings') or max_pos
    if s.get('attention_factor') is not None:
        af = s['attention_factor']
    elif s.get('mscale') and s.get('mscale_all_dim'):
        af = yarn_mscale(factor, s['mscale']) / yarn_mscale(factor, s['mscale_all_dim'])
    else:
        af = yarn_mscale(factor)
    beta_fast, beta_slow = s.get('beta_fast') or 32, s.get('beta_slow') or 1

    def corr(r):
        return d * math.log(ompe / (r * 2 * math.pi)) / (2 * math.log(theta))
    low, high = max(math.floor(corr(beta_fast)), 0), min(math.ceil(corr(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(d // 2, dtype=torch.float64) - low) / (high - low), 0, 1)
    extra = default_inv_freq(d, theta)
    return extra * (1 - ramp) + (extra / factor) * ramp, af


def attend(q, k, v, scale, window=None):
    """Eager attention. q (H, N, d), k (G, N, d), v (G, N, dv): repeat_interleave K/V to H heads,
    causal mask (plus a sliding window: key j visible to query i iff i - window < j <= i)."""
    H, G, N = q.shape[0], k.shape[0], q.shape[1]
    k = k.repeat_interleave(H // G, dim=0)
    v = v.repeat_interleave(H // G, dim=0)
    s = q @ k.transpose(-1, -2) * scale
    i = torch.arange(N)[:, None]
    j = torch.arange(N)[None, :]
    visible = j <= i
    if window is not None:
        visible = visible & (j > i - window)
    s = s.masked_fill(~visible, float('-inf'))
    p = torch.softmax(s, dim=-1)
    return p @ v, p, s


def heads(x, n, d):
    """(N, n*d) -> (n, N, d)"""
    return x.reshape(x.shape[0], n, d).transpose(0, 1)


def merge(x):
    """(n, N, d) -> (N, n*d)"""
    return x.transpose(0, 1).reshape(x.shape[1], -1)


def stage_keeper(stages, on):
    """keep(name, t): stores t as stage `name` of the layer whose stages are written (on), returns t."""
    def keep(name, t):
        if on:
            stages[name] = t
        return t
    return keep


def keep_merged(keep, name, t):
    """Keeps (H, N, d) as (N, H*d); returns t."""
    keep(name, merge(t))
    return t


def keep_attention(keep, scores, p, o):
    """The attention's stages: scores (H, N, N) (-inf where masked), the maps, each head's output, the concatenation."""
    keep('scores', scores), keep('attention', p), keep('heads', o), keep('concat', merge(o))


# ---------------------------------------------------------------------------------------------
# random weights

class Maker:
    """Draws every tensor from one seeded generator, stores it at the case's dtype (16-bit rounded)
    and returns its widened float64 value for the reference."""

    def __init__(self, seed, dtype):
        self.g = torch.Generator().manual_seed(seed)
        self.dtype = dtype
        self.tensors = {}

    def put(self, name, value, dtype=None):
        stored = value.to(torch.float32).to(dtype or self.dtype)
        self.tensors[name] = stored
        return stored.to(torch.float64)

    def randn(self, *shape):
        return torch.randn(*shape, generator=self.g, dtype=torch.float64)

    def linear(self, name, out_f, in_f, gain=1.0):  # nn.Linear: (out, in)
        return self.put(name, self.randn(out_f, in_f) * (gain / math.sqrt(in_f)))

    def conv1d(self, name, in_f, out_f, gain=1.0):  # GPT-2 Conv1D: (in, out)
        return self.put(name, self.randn(in_f, out_f) * (gain / math.sqrt(in_f)))

    def bias(self, name, n):
        return self.put(name, 0.1 * self.randn(n))

    def norm(self, name, n):
        return self.put(name, 1.0 + 0.1 * self.randn(n))

    def embed(self, name, rows, cols):
        return self.put(name, self.randn(rows, cols))


# ---------------------------------------------------------------------------------------------
# the architectures

def gpt2_like(c, m, ids, bigcode):
    """gpt2 (Conv1D (in, out) weights, fused c_attn [q|k|v]) and gpt_bigcode (nn.Linear, MQA)."""
    D, H, L, V, P = c['n_embd'], c['n_head'], c['n_layer'], c['vocab_size'], c['n_positions']
    I = c.get('n_inner') or 4 * D
    hd, eps = D // H, c['layer_norm_epsilon']
    G = 1 if bigcode and c.get('multi_query', True) else H
    pre = c['_prefix']
    wte = m.embed(pre + 'wte.weight', V, D)
    wpe = m.put(pre + 'wpe.weight', 0.5 * m.randn(P, D))
    N = len(ids)
    x = wte[ids] + wpe[:N]
    maps, stages = [], {}
    for l in range(L):
        keep = stage_keeper(stages, l == L - 1)
        p = f'{pre}h.{l}.'
        ln1w, ln1b = m.norm(p + 'ln_1.weight', D), m.bias(p + 'ln_1.bias', D)
        if bigcode:
            w = torch.cat((m.randn(D, D) * QK_GAIN, m.randn(G * hd, D) * QK_GAIN, m.randn(G * hd, D))) / math.sqrt(D)
            wqkv = m.put(p + 'attn.c_attn.weight', w)
            bqkv = m.bias(p + 'attn.c_attn.bias', D + 2 * G * hd)
        else:
            w = torch.cat((m.randn(D, 2 * D) * QK_GAIN, m.randn(D, D)), dim=1) / math.sqrt(D)
            wqkv = m.put(p + 'attn.c_attn.weight', w)
            bqkv = m.bias(p + 'attn.c_attn.bias', 3 * D)
            # the causal-mask buffer old GPT-2 files carry (a loader ignores it, whatever its dtype)
            m.put(p + 'attn.bias', torch.tril(torch.ones(1, 1, P, P)).bool(), torch.bool)
        wo = m.linear(p + 'attn.c_proj.weight', D, D) if bigcode else m.conv1d(p + 'attn.c_proj.weight', D, D)
        bo = m.bias(p + 'attn.c_proj.bias', D)
        ln2w, ln2b = m.norm(p + 'ln_2.weight', D), m.bias(p + 'ln_2.bias', D)
        wfc = m.linear(p + 'mlp.c_fc.weight', I, D) if bigcode else m.conv1d(p + 'mlp.c_fc.weight', D, I)
        bfc = m.bias(p + 'mlp.c_fc.bias', I)
        wpr = m.linear(p + 'mlp.c_proj.weight', D, I) if bigcode else m.conv1d(p + 'mlp.c_proj.weight', I, D)
        bpr = m.bias(p + 'mlp.c_proj.bias', D)

        h = keep('x', layer_norm(x, ln1w, ln1b, eps))
        qkv = (h @ wqkv.T if bigcode else h @ wqkv) + bqkv
        q, k, v = keep('q', qkv[:, :D]), keep('k', qkv[:, D:D + G * hd]), keep('v', qkv[:, D + G * hd:])
        qh, kh, vh = keep('qHeads', heads(q, H, hd)), keep('kHeads', heads(k, G, hd)), keep('vHeads', heads(v, G, hd))
        o, pmap, scores = attend(qh, kh, vh, hd ** -0.5)
        maps.append(pmap)
        keep_attention(keep, scores, pmap, o)
        x = x + keep('output', ((merge(o) @ wo.T) if bigcode else (merge(o) @ wo)) + bo)
        h = layer_norm(x, ln2w, ln2b, eps)
        f = gelu_tanh((h @ wfc.T if bigcode else h @ wfc) + bfc)
        x = x + (f @ wpr.T if bigcode else f @ wpr) + bpr
    x = layer_norm(x, m.norm(pre + 'ln_f.weight', D), m.bias(pre + 'ln_f.bias', D), eps)
    return x @ wte.T, maps, stages


def llama_like(c, m, ids):
    """llama, mistral, qwen2, qwen3: RMSNorm, rotate-half RoPE, GQA, SwiGLU."""
    t = c['model_type']
    D, H, L, V = c['hidden_size'], c['num_attention_heads'], c['num_hidden_layers'], c['vocab_size']
    G = c.get('num_key_value_heads') or H
    hd = c.get('head_dim') or D // H
    I, eps, theta = c['intermediate_size'], c['rms_norm_eps'], c.get('rope_theta', 10000.0)
    s = c.get('rope_scaling')
    inv = llama3_inv_freq(hd, theta, s) if s and s.get('rope_type') == 'llama3' else default_inv_freq(hd, theta)
    qkv_bias = t == 'qwen2' or (t in ('llama', 'qwen3') and c.get('attention_bias', False))
    o_bias = t in ('llama', 'qwen3') and c.get('attention_bias', False)
    mlp_bias = t == 'llama' and c.get('mlp_bias', False)
    window = c.get('sliding_window') if t == 'mistral' else None
    embed = m.embed('model.embed_tokens.weight', V, D)
    x = embed[ids]
    maps, stages = [], {}
    for l in range(L):
        keep = stage_keeper(stages, l == L - 1)
        p = f'model.layers.{l}.'
        w_in = m.norm(p + 'input_layernorm.weight', D)
        wq = m.linear(p + 'self_attn.q_proj.weight', H * hd, D, QK_GAIN)
        wk = m.linear(p + 'self_attn.k_proj.weight', G * hd, D, QK_GAIN)
        wv = m.linear(p + 'self_attn.v_proj.weight', G * hd, D)
        bq = m.bias(p + 'self_attn.q_proj.bias', H * hd) if qkv_bias else 0
        bk = m.bias(p + 'self_attn.k_proj.bias', G * hd) if qkv_bias else 0
        bv = m.bias(p + 'self_attn.v_proj.bias', G * hd) if qkv_bias else 0
        wo = m.linear(p + 'self_attn.o_proj.weight', D, H * hd)
        bo = m.bias(p + 'self_attn.o_proj.bias', D) if o_bias else 0
        if t == 'qwen3':
            qn, kn = m.norm(p + 'self_attn.q_norm.weight', hd), m.norm(p + 'self_attn.k_norm.weight', hd)
        w_post = m.norm(p + 'post_attention_layernorm.weight', D)
        wg = m.linear(p + 'mlp.gate_proj.weight', I, D)
        wu = m.linear(p + 'mlp.up_proj.weight', I, D)
        wd = m.linear(p + 'mlp.down_proj.weight', D, I)
        bg = m.bias(p + 'mlp.gate_proj.bias', I) if mlp_bias else 0
        bu = m.bias(p + 'mlp.up_proj.bias', I) if mlp_bias else 0
        bd = m.bias(p + 'mlp.down_proj.bias', D) if mlp_bias else 0

        h = keep('x', rms_norm(x, w_in, eps))
        q, k, v = keep('q', h @ wq.T + bq), keep('k', h @ wk.T + bk), keep('v', h @ wv.T + bv)
        q, k, v = heads(q, H, hd), heads(k, G, hd), heads(v, G, hd)
        if t == 'qwen3':
            q, k = rms_norm(q, qn, eps), rms_norm(k, kn, eps)
            keep('qNorm', merge(q)), keep('kNorm', merge(k))
        q, k = rope_rotate_half(q, inv), rope_rotate_half(k, inv)
        keep('qRotated', merge(q)), keep('kRotated', merge(k))
        keep('qHeads', q), keep('kHeads', k), keep('vHeads', v)
        o, pmap, scores = attend(q, k, v, hd ** -0.5, window)
        maps.append(pmap)
        keep_attention(keep, scores, pmap, o)
        x = x + keep('output', merge(o) @ wo.T + bo)
        h = rms_norm(x, w_post, eps)
        x = x + (silu(h @ wg.T + bg) * (h @ wu.T + bu)) @ wd.T + bd
    x = rms_norm(x, m.norm('model.norm.weight', D), eps)
    head = embed if c.get('tie_word_embeddings') else m.linear('lm_head.weight', V, D)
    return x @ head.T, maps, stages


def deepseek_v2(c, m, ids):
    """DeepSeek-V2 with dense MLP layers: multi-head latent attention as DeepSeek defines it."""
    D, H, L, V = c['hidden_size'], c['num_attention_heads'], c['num_hidden_layers'], c['vocab_size']
    I, eps, theta = c['intermediate_size'], c['rms_norm_eps'], c.get('rope_theta', 10000.0)
    qr, r = c.get('q_lora_rank'), c['kv_lora_rank']
    nope, rope, dv = c['qk_nope_head_dim'], c['qk_rope_head_dim'], c['v_head_dim']
    qk = nope + rope
    bias = c.get('attention_bias', False)
    s = c.get('rope_scaling')
    scale = qk ** -0.5
    if s:
        inv, af = yarn_inv_freq(rope, theta, s, c['max_position_embeddings'])
        if s.get('mscale_all_dim'):
            scale *= yarn_mscale(s['factor'], s['mscale_all_dim']) ** 2
    else:
        inv, af = default_inv_freq(rope, theta), 1.0
    embed = m.embed('model.embed_tokens.weight', V, D)
    x = embed[ids]
    maps, stages = [], {}
    for l in range(L):
        keep = stage_keeper(stages, l == L - 1)
        p = f'model.layers.{l}.'
        a = p + 'self_attn.'
        w_in = m.norm(p + 'input_layernorm.weight', D)
        if qr is None:
            wq = m.linear(a + 'q_proj.weight', H * qk, D, QK_GAIN)
        else:
            wqa = m.linear(a + 'q_a_proj.weight', qr, D, QK_GAIN)
            bqa = m.bias(a + 'q_a_proj.bias', qr) if bias else 0
            nqa = m.norm(a + 'q_a_layernorm.weight', qr)
            wqb = m.linear(a + 'q_b_proj.weight', H * qk, qr)
        wkva = m.linear(a + 'kv_a_proj_with_mqa.weight', r + rope, D, QK_GAIN)
        bkva = m.bias(a + 'kv_a_proj_with_mqa.bias', r + rope) if bias else 0
        nkv = m.norm(a + 'kv_a_layernorm.weight', r)
        wkvb = m.linear(a + 'kv_b_proj.weight', H * (nope + dv), r)
        wo = m.linear(a + 'o_proj.weight', D, H * dv)
        bo = m.bias(a + 'o_proj.bias', D) if bias else 0
        w_post = m.norm(p + 'post_attention_layernorm.weight', D)
        wg = m.linear(p + 'mlp.gate_proj.weight', I, D)
        wu = m.linear(p + 'mlp.up_proj.weight', I, D)
        wd = m.linear(p + 'mlp.down_proj.weight', D, I)

        h = keep('x', rms_norm(x, w_in, eps))
        q = h @ wq.T if qr is None else keep('cq', rms_norm(h @ wqa.T + bqa, nqa, 1e-6)) @ wqb.T
        q = heads(q, H, qk)                                         # (H, N, nope + rope)
        keep('q', merge(q[..., :nope]))
        kva = h @ wkva.T + bkva
        keep('c', kva[:, :r])
        latent, k_pe = keep('cNorm', rms_norm(kva[:, :r], nkv, 1e-6)), kva[:, r:]  # (N, r), (N, rope)
        kv = heads(latent @ wkvb.T, H, nope + dv)                   # (H, N, nope + dv)
        keep('k', merge(kv[..., :nope])), keep('v', merge(kv[..., nope:]))
        q_pe = keep_merged(keep, 'qRope', rope_adjacent(q[..., nope:], inv, af))
        k_pe = rope_adjacent(k_pe[None], inv, af)
        keep('kRope', k_pe[0])
        k_pe = k_pe.expand(H, -1, -1)
        qq = keep('qHeads', torch.cat((q[..., :nope], q_pe), dim=-1))
        kk = keep('kHeads', torch.cat((kv[..., :nope], k_pe), dim=-1))
        keep('vHeads', kv[..., nope:])
        keep('cache', torch.cat((latent, k_pe[0]), dim=-1))
        w_uk = wkvb.reshape(H, nope + dv, r)[:, :nope, :]          # (H, nope, r): W_uk of each head
        keep('qAbsorbed', q[..., :nope] @ w_uk)                     # (H, N, r): q_nope_h W_uk_h
        o, pmap, scores = attend(qq, kk, kv[..., nope:], scale)
        maps.append(pmap)
        keep_attention(keep, scores, pmap, o)
        x = x + keep('output', merge(o) @ wo.T + bo)
        h = rms_norm(x, w_post, eps)
        x = x + (silu(h @ wg.T) * (h @ wu.T)) @ wd.T
    x = rms_norm(x, m.norm('model.norm.weight', D), eps)
    head = embed if c.get('tie_word_embeddings') else m.linear('lm_head.weight', V, D)
    return x @ head.T, maps, stages


# ---------------------------------------------------------------------------------------------
# the cases

COMMON_LLAMA = {'bos_token_id': 1, 'eos_token_id': 2, 'initializer_range': 0.02, 'use_cache': True,
                'transformers_version': '4.57.6', 'attention_dropout': 0.0, 'hidden_act': 'silu',
                'max_position_embeddings': 64, 'rms_norm_eps': 1e-5}

CASES = [
    # name, dtype, shards, n_tokens, config, what it covers
    ('gpt2', torch.float32, 1, 10, {
        'model_type': 'gpt2', 'architectures': ['GPT2LMHeadModel'], 'n_embd': 32, 'n_head': 4, 'n_layer': 2,
        'n_positions': 32, 'n_ctx': 32, 'vocab_size': 64, 'activation_function': 'gelu_new', 'n_inner': None,
        'layer_norm_epsilon': 1e-5, 'attn_pdrop': 0.1, 'embd_pdrop': 0.1, 'resid_pdrop': 0.1,
        'bos_token_id': 0, 'eos_token_id': 0, 'initializer_range': 0.02, 'summary_type': 'cls_index',
        'summary_use_proj': True, 'summary_activation': None, 'summary_proj_to_labels': True,
        'summary_first_dropout': 0.1, 'task_specific_params': {'text-generation': {'do_sample': True}},
        '_prefix': ''}, 'MHA, Conv1D (in, out) weights, fused c_attn, learned positions, tied head, '
                        'unprefixed names and the old attn.bias mask buffers (BOOL)'),
    ('gpt_bigcode', torch.float32, 1, 10, {
        'model_type': 'gpt_bigcode', 'architectures': ['GPTBigCodeForCausalLM'], 'n_embd': 32, 'n_head': 4,
        'n_layer': 2, 'n_positions': 32, 'vocab_size': 64, 'activation_function': 'gelu_pytorch_tanh',
        'n_inner': 80, 'layer_norm_epsilon': 1e-5, 'multi_query': True, 'scale_attn_weights': True,
        'attention_softmax_in_fp32': True, 'scale_attention_softmax_in_fp32': True, 'bos_token_id': 0,
        'eos_token_id': 0, 'torch_dtype': 'float32', '_prefix': 'transformer.'},
     'MQA (one K/V head), nn.Linear fused c_attn [q|k|v], transformer. prefix, tied head'),
    ('llama3', torch.bfloat16, 2, 12, dict(COMMON_LLAMA, **{
        'model_type': 'llama', 'architectures': ['LlamaForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 16, 'num_hidden_layers': 2,
        'intermediate_size': 48, 'vocab_size': 64, 'rope_theta': 500000.0, 'tie_word_embeddings': False,
        'attention_bias': False, 'mlp_bias': False, 'pretraining_tp': 1, 'torch_dtype': 'bfloat16',
        'rope_scaling': {'rope_type': 'llama3', 'factor': 8.0, 'low_freq_factor': 1.0,
                         'high_freq_factor': 4.0, 'original_max_position_embeddings': 64}}),
     'GQA 4/2, explicit head_dim 16 (hidden/heads = 8), Llama 3 RoPE scaling, BF16, two shards with an index'),
    ('mistral', torch.float16, 1, 10, dict(COMMON_LLAMA, **{
        'model_type': 'mistral', 'architectures': ['MistralForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 2, 'num_hidden_layers': 2, 'intermediate_size': 48,
        'vocab_size': 64, 'rope_theta': 10000.0, 'sliding_window': 4, 'tie_word_embeddings': False,
        'torch_dtype': 'float16'}),
     'GQA 4/2, sliding window 4 over 10 tokens, F16'),
    ('qwen2', torch.bfloat16, 1, 10, dict(COMMON_LLAMA, **{
        'model_type': 'qwen2', 'architectures': ['Qwen2ForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 1, 'num_hidden_layers': 2, 'intermediate_size': 48,
        'vocab_size': 64, 'rope_theta': 1000000.0, 'rms_norm_eps': 1e-6, 'sliding_window': 4,
        'use_sliding_window': False, 'max_window_layers': 2, 'tie_word_embeddings': True,
        'torch_dtype': 'bfloat16', 'rope_scaling': None}),
     'q/k/v biases, GQA 4/1, tied head (no lm_head), an inactive sliding_window, BF16'),
    ('qwen3', torch.float32, 1, 10, dict(COMMON_LLAMA, **{
        'model_type': 'qwen3', 'architectures': ['Qwen3ForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 2, 'head_dim': 8, 'num_hidden_layers': 2,
        'intermediate_size': 48, 'vocab_size': 64, 'rope_theta': 1000000.0, 'rms_norm_eps': 1e-6,
        'attention_bias': False, 'use_sliding_window': False, 'sliding_window': None, 'max_window_layers': 2,
        'tie_word_embeddings': False, 'torch_dtype': 'float32', 'rope_scaling': None}),
     'per-head RMSNorm on q and k before RoPE, GQA 4/2, explicit head_dim'),
    ('deepseek_v2', torch.bfloat16, 1, 10, dict(COMMON_LLAMA, **{
        'model_type': 'deepseek_v2', 'architectures': ['DeepseekV2ForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 4, 'num_hidden_layers': 2, 'intermediate_size': 48,
        'vocab_size': 64, 'rope_theta': 10000.0, 'rms_norm_eps': 1e-6, 'q_lora_rank': None,
        'kv_lora_rank': 16, 'qk_nope_head_dim': 8, 'qk_rope_head_dim': 8, 'v_head_dim': 12,
        'attention_bias': False, 'first_k_dense_replace': 2, 'n_routed_experts': 4, 'n_shared_experts': 1,
        'num_experts_per_tok': 2, 'moe_intermediate_size': 16, 'moe_layer_freq': 1, 'topk_method': 'greedy',
        'n_group': 1, 'topk_group': 1, 'routed_scaling_factor': 1.0, 'scoring_func': 'softmax',
        'aux_loss_alpha': 0.001, 'seq_aux': True, 'norm_topk_prob': False, 'tie_word_embeddings': False,
        'torch_dtype': 'bfloat16', 'rope_scaling': None}),
     'MLA without query compression (q_proj), v_head_dim 12 != qk_nope 8, adjacent-pair RoPE, dense MLPs, BF16'),
    ('deepseek_v2_lora_yarn', torch.float32, 1, 10, dict(COMMON_LLAMA, **{
        'model_type': 'deepseek_v2', 'architectures': ['DeepseekV2ForCausalLM'], 'hidden_size': 32,
        'num_attention_heads': 4, 'num_key_value_heads': 4, 'num_hidden_layers': 2, 'intermediate_size': 48,
        'vocab_size': 64, 'rope_theta': 10000.0, 'rms_norm_eps': 1e-6, 'q_lora_rank': 24,
        'kv_lora_rank': 16, 'qk_nope_head_dim': 8, 'qk_rope_head_dim': 8, 'v_head_dim': 8,
        'attention_bias': True, 'first_k_dense_replace': 2, 'n_routed_experts': None,
        'tie_word_embeddings': False, 'torch_dtype': 'float32',
        'rope_scaling': {'type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 16,
                         'beta_fast': 32, 'beta_slow': 1, 'mscale': 1.0, 'mscale_all_dim': 0.707}}),
     'MLA with query compression (q_a_proj, q_a_layernorm, q_b_proj), biases, YaRN (attention factor '
     'm(4, 1)/m(4, 0.707) on cos/sin, softmax scale times m(4, 0.707)^2)'),
    ('gpt_bigcode_mha', torch.float32, 1, 10, {
        'model_type': 'gpt_bigcode', 'architectures': ['GPTBigCodeForCausalLM'], 'n_embd': 32, 'n_head': 4,
        'n_layer': 2, 'n_positions': 32, 'vocab_size': 64, 'activation_function': 'gelu_pytorch_tanh',
        'n_inner': 80, 'layer_norm_epsilon': 1e-5, 'multi_query': False, 'scale_attn_weights': True,
        'attention_softmax_in_fp32': True, 'scale_attention_softmax_in_fp32': True, 'bos_token_id': 0,
        'eos_token_id': 0, 'torch_dtype': 'float32', '_prefix': 'transformer.'},
     'gpt_bigcode with multi_query false: MHA (a K/V head per query head), nn.Linear fused c_attn [q|k|v]'),
]


def shard(tensors, n):
    """Greedy split in name order into n shards (as save_pretrained splits by size)."""
    names = sorted(tensors)
    total = sum(tensors[k].numel() * tensors[k].element_size() for k in names)
    limit, out, size = total / n, [{}], 0
    for k in names:
        b = tensors[k].numel() * tensors[k].element_size()
        if size + b > limit * len(out) and len(out) < n:
            out.append({})
        out[-1][k] = tensors[k]
        size += b
    return out


def mean_max_weight(maps):
    return float(np.mean([p.max(dim=-1).values.mean().item() for p in maps]))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h


def conversion_hashes():
    """numpy's float16 -> float32 and PyTorch's bfloat16 -> float32 for all 65536 bit patterns, as the
    FNV-1a 64 hash of the float32 bits (little-endian): a loader's conversions must match exactly."""
    bits = np.arange(65536, dtype=np.uint16)
    f16 = bits.view(np.float16).astype(np.float32).view('<u4').tobytes()
    bf16 = torch.from_numpy(bits.astype(np.int16)).view(torch.bfloat16).to(torch.float32).numpy().view('<u4').tobytes()
    return {'f16_to_f32_fnv1a64': f'{fnv1a64(f16):016x}', 'bf16_to_f32_fnv1a64': f'{fnv1a64(bf16):016x}'}


# A tiny byte-level BPE tokenizer in Hugging Face's tokenizer.json format (as GPT-2's), written into
# the gpt2 fixture so that the folder is a whole checkpoint download. Its vocabulary (41 tokens) fits
# the fixture model's 64. The expected splits below are derived by hand from the merges (BPE applies
# the lowest-ranked merge first): "the" -> t h e -> th e -> the; " cat" -> G c a t -> G c at -> Gc at
# -> Gcat (G: the byte-level symbol of a space, U+0120).
TOKENIZER_MERGES = ['t h', 'th e', '\u0120 the', 'a t', '\u0120 c', '\u0120c at', '\u0120 s', '\u0120s at', 'o n',
                    '\u0120 on', '\u0120 m', '\u0120m at']
TOKENIZER_EXPECTED = [
    {'text': 'the cat sat on the mat.',
     'tokens': ['the', '\u0120cat', '\u0120sat', '\u0120on', '\u0120the', '\u0120mat', '.']},
    {'text': 'a dog on a mat', 'tokens': ['a', '\u0120', 'd', 'o', 'g', '\u0120on', '\u0120', 'a', '\u0120mat']},
    {'text': 'that', 'tokens': ['th', 'at']},
]


def tokenizer_files():
    alphabet = ['<|endoftext|>'] + [chr(c) for c in range(ord('a'), ord('z') + 1)] + ['\u0120', '.']
    vocab = alphabet + [m.replace(' ', '') for m in TOKENIZER_MERGES]
    ids = {t: i for i, t in enumerate(vocab)}
    byte_level = {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True, 'use_regex': True}
    tokenizer = {
        'version': '1.0', 'truncation': None, 'padding': None,
        'added_tokens': [{'id': 0, 'content': '<|endoftext|>', 'single_word': False, 'lstrip': False, 'rstrip': False,
                          'normalized': True, 'special': True}],
        'normalizer': None, 'pre_tokenizer': byte_level, 'post_processor': byte_level, 'decoder': byte_level,
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': None, 'continuing_subword_prefix': '',
                  'end_of_word_suffix': '', 'fuse_unk': False, 'byte_fallback': False, 'vocab': ids,
                  'merges': TOKENIZER_MERGES}}
    config = {'model_max_length': 32, 'bos_token': '<|endoftext|>', 'eos_token': '<|endoftext|>',
              'unk_token': '<|endoftext|>', 'tokenizer_class': 'GPT2Tokenizer', 'add_prefix_space': False}
    expected = [dict(e, ids=[ids[t] for t in e['tokens']]) for e in TOKENIZER_EXPECTED]
    return tokenizer, config, expected


def main():
    os.makedirs(ROOT, exist_ok=True)
    manifest = []
    for k, (name, dtype, shards, n, config, about) in enumerate(CASES, start=1):
        folder = os.path.join(ROOT, name)
        os.makedirs(folder, exist_ok=True)
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
        m = Maker(k, dtype)
        ids = torch.randint(0, config['vocab_size'], (n,), generator=m.g)
        c = {key: v for key, v in config.items() if not key.startswith('_')}
        if c['model_type'] in ('gpt2', 'gpt_bigcode'):
            logits, maps, stages = gpt2_like(config, m, ids, c['model_type'] == 'gpt_bigcode')
        elif c['model_type'] == 'deepseek_v2':
            logits, maps, stages = deepseek_v2(c, m, ids)
        else:
            logits, maps, stages = llama_like(c, m, ids)
        sharp = mean_max_weight(maps)
        assert sharp > 0.4, f'{name}: the maps are too uniform (mean max weight {sharp:.3f})'
        for p in maps:  # rows sum to 1, causal
            assert torch.allclose(p.sum(-1), torch.ones(()), atol=1e-12)
            assert float(torch.triu(p, diagonal=1).abs().max()) == 0.0
        with open(os.path.join(folder, 'config.json'), 'w') as f:
            json.dump(c, f, indent=2)
            f.write('\n')
        if shards == 1:
            size = write_safetensors(os.path.join(folder, 'model.safetensors'), m.tensors)
        else:
            parts, weight_map, size = shard(m.tensors, shards), {}, 0
            for i, part in enumerate(parts, start=1):
                file = f'model-{i:05d}-of-{len(parts):05d}.safetensors'
                size += write_safetensors(os.path.join(folder, file), part)
                weight_map.update({t: file for t in part})
            with open(os.path.join(folder, 'model.safetensors.index.json'), 'w') as f:
                json.dump({'metadata': {'total_size': size}, 'weight_map': dict(sorted(weight_map.items()))}, f, indent=2)
                f.write('\n')
        expected = {'ids': ids.to(torch.int32), 'logits': logits.to(torch.float32)}
        for l, p in enumerate(maps):
            expected[f'attentions.{l}'] = p.to(torch.float32)
        write_safetensors(os.path.join(folder, 'expected.safetensors'), expected)
        layer_stages = {'layer': torch.tensor([len(maps) - 1], dtype=torch.int32)}
        layer_stages.update({k: v.to(torch.float32) for k, v in stages.items()})
        write_safetensors(os.path.join(folder, 'stages.safetensors'), layer_stages)
        if name == 'gpt2':
            tokenizer, tokenizer_config, tokenizer_expected = tokenizer_files()
            for file, value in (('tokenizer.json', tokenizer), ('tokenizer_config.json', tokenizer_config),
                                ('tokenizer_expected.json', tokenizer_expected)):
                with open(os.path.join(folder, file), 'w', encoding='utf-8') as f:
                    json.dump(value, f, indent=1, ensure_ascii=False)
                    f.write('\n')
        manifest.append({'name': name, 'model_type': c['model_type'], 'dtype': ST_DTYPES[dtype], 'shards': shards,
                         'tokens': n, 'covers': about})
        print(f'{name:24s} {ST_DTYPES[dtype]:5s} {size:7d} bytes of weights, mean max map weight {sharp:.3f}, '
              f'max |logit| {float(logits.abs().max()):.3f}')
    with open(os.path.join(ROOT, 'cases.json'), 'w') as f:
        json.dump({'generator': 'scripts/gen_pretrained_fixtures.py', 'torch': torch.__version__,
                   'numpy': np.__version__, 'conversions': conversion_hashes(), 'cases': manifest}, f, indent=2)
        f.write('\n')


if __name__ == '__main__':
    sys.exit(main())
