#!/usr/bin/python3
"""The held-out loss of a bundled model, recomputed with PyTorch from its .safetensors file alone.

  zoo_loss.py MODEL.safetensors TEXT_FILE     prints one JSON line {"loss": nats/char, "bitsPerChar", "windows"}

Written from the file's layout and the trainer's definitions (docs/zoo.md, docs/api.md "The model
file"), not from the core: the characters' ids (the sorted distinct code points of the text), the
held-out text (its last 10 %), the evaluation windows (up to 256, evenly spaced: start w * span //
(windows - 1)), and the model (learned positions, pre-LayerNorm blocks, attention of the file's
variant, a tanh-GELU MLP, final LayerNorm, logits on the tied embedding), in float64.
"""
import json
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    dtypes = {"F16": np.float16, "F32": np.float32}
    base = 8 + n
    tensors = {k: torch.from_numpy(np.frombuffer(data[base + v["data_offsets"][0]:base + v["data_offsets"][1]],
                                                 dtypes[v["dtype"]]).astype(np.float64).reshape(v["shape"]))
               for k, v in header.items()}
    return tensors, meta


def attention(p, l, a, meta):
    """a: (B, N, D) -> the attention block's output (B, N, D), causal."""
    b, n, d = a.shape
    h = int(meta["nHeads"])
    dh = int(meta.get("dHead", d // h))
    w = lambda name: p[f"layers.{l}.attn.{name}"]
    heads = lambda t, count: t.reshape(b, n, count, dh).transpose(1, 2)               # (B, count, N, dh)
    q = heads(a @ w("wq"), h)
    if meta["variant"] == "mla":
        if "ropeDim" in meta:
            raise SystemExit("zoo_loss.py: MLA with decoupled RoPE is not written here")
        c = a @ w("wDkv")                                                            # (B, N, r): the latent
        k, v = heads(c @ w("wUk"), h), heads(c @ w("wUv"), h)
    else:
        g = w("wk").shape[1] // dh                                                   # KV heads: H, G or 1
        k = heads(a @ w("wk"), g).repeat_interleave(h // g, dim=1)
        v = heads(a @ w("wv"), g).repeat_interleave(h // g, dim=1)
    mask = torch.triu(torch.full((n, n), float("-inf"), dtype=a.dtype), 1)
    att = torch.softmax(q @ k.transpose(-1, -2) / np.sqrt(dh) + mask, dim=-1)      # (B, H, N, N)
    return (att @ v).transpose(1, 2).reshape(b, n, h * dh) @ w("wo")


def logits(p, meta, tokens):
    n, d, layers = tokens.shape[1], int(meta["dModel"]), int(meta["nLayers"])
    if meta.get("layerNorm") != "true" or meta.get("mlp") != "true" or meta.get("tiedEmbeddings") != "true":
        raise SystemExit("zoo_loss.py: written for the zoo's blocks (layerNorm, mlp, tiedEmbeddings)")
    ln = lambda x, name: F.layer_norm(x, (d,), p[name + ".weight"], p[name + ".bias"], 1e-5)
    x = p["wte"][tokens] + p["wpe"][:n]                                              # (B, N, D)
    for l in range(layers):
        x = x + attention(p, l, ln(x, f"layers.{l}.ln1"), meta)
        m = ln(x, f"layers.{l}.ln2")
        mlp = lambda name: p[f"layers.{l}.mlp.{name}"]
        x = x + F.gelu(m @ mlp("w1") + mlp("b1"), approximate="tanh") @ mlp("w2") + mlp("b2")
    return ln(x, "lnf") @ p["wte"].t()                                                # (B, N, V)


def main(model_path, text_path):
    p, meta = read_safetensors(model_path)
    with open(text_path, encoding="utf-8", newline="") as f:
        text = f.read()
    raw = text.encode("utf-8")
    if str(len(raw)) != meta["textBytes"] or "%08x" % zlib.crc32(raw) != meta["textCrc32"]:
        raise SystemExit("zoo_loss.py: the text is not the one the model was trained on")
    cps = [ord(c) for c in text]
    index = {c: i for i, c in enumerate(sorted(set(cps)))}
    ids = np.array([index[c] for c in cps], np.int64)
    val = ids[len(ids) * 9 // 10:]
    n = int(meta["seqLen"])
    span = len(val) - n - 1
    windows = max(1, min(256, span + 1))
    starts = [0 if windows == 1 else w * span // (windows - 1) for w in range(windows)]
    tokens = torch.from_numpy(np.stack([val[s:s + n] for s in starts]))
    targets = torch.from_numpy(np.stack([val[s + 1:s + n + 1] for s in starts]))
    with torch.no_grad():
        out = logits(p, meta, tokens)
        loss = float(F.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1)))
    print(json.dumps({"loss": loss, "bitsPerChar": loss / np.log(2), "windows": windows}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
