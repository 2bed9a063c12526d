#!/usr/bin/python3
"""The Python side of `npm run bench:peers` (scripts/bench-peers.mjs): workload data, ONNX export, NumPy peer.

  bench_peers.py prepare WORKLOAD_JSON DIR   write DIR/{meta.json, x.bin, wq.bin, wk.bin, wv.bin, wo.bin
                                             [, kc.bin, vc.bin]} (float32, row-major) and, when PyTorch is
                                             installed, DIR/plain.onnx (torch.onnx.export)
  bench_peers.py numpy DIR ROUNDS ITERS      the NumPy peer: compute once, write DIR/out-numpy.bin, then
                                             print one JSON line {"ms": [...]} with a median per round

Data are the core's seeded draws (core/src/weights.cpp: uniform01 = splitmix64 hash), so our native
benchmark (bench/bench_core.cpp), which draws them itself, computes on the very same numbers:
  weights  W[i, j] = (2 u(seed, slot id, i, j) - 1) / sqrt(rows)     ids wq 1, wk 2, wv 3, wo 4
  x        x[i, j] = 2 u(seed, 0, i, j) - 1
  decode   the cache rows of Session::fill_for_benchmark: K id 100, V id 101, (cacheLen, G*dh) each,
           and one appended token x (1, D) at position cacheLen.
Shapes: x (N, D)  wq (D, H*dh)  wk, wv (D, G*dh)  wo (H*dh, D)  kc, vc (S, G*dh).
"""
import json
import os
import sys
import time

import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(x):
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def uniform01(seed, ident, rows, cols):
    """(rows, cols) float32 of the core's uniform01(seed, id, i, j), in [0, 1)."""
    a = splitmix64(splitmix64(np.uint64(seed)) ^ np.uint64(ident))
    out = np.empty((rows, cols), np.float32)
    j = np.arange(cols, dtype=np.uint64)
    for i0 in range(0, rows, 256):  # blocks of rows keep the uint64 temporaries small
        i = np.arange(i0, min(rows, i0 + 256), dtype=np.uint64)[:, None]
        h = splitmix64(splitmix64(a ^ i) ^ j)
        out[i0:i0 + len(i)] = (h >> np.uint64(40)).astype(np.float32) * np.float32(1.0 / 16777216.0)
    return out


def shape_of(spec):
    d, h = spec["dModel"], spec["nHeads"]
    g = {"mha": h, "mqa": 1}.get(spec["variant"], spec.get("nKvHeads", h))
    dh = spec.get("dHead", d // h)
    return d, h, g, dh


def prepare(workload, out):
    spec = workload["spec"]
    if spec["variant"] == "mla" or spec.get("rope"):
        raise SystemExit("bench_peers.py: MLA and RoPE workloads are not compared with peers")
    d, h, g, dh = shape_of(spec)
    seed = spec.get("seed", 0)
    os.makedirs(out, exist_ok=True)
    decode = "decode" in workload
    n = 1 if decode else spec["seqLen"]
    cache = workload["decode"]["cacheLen"] if decode else 0
    arrays = {
        "x": 2 * uniform01(seed, 0, n, d) - 1,
        "wq": (2 * uniform01(seed, 1, d, h * dh) - 1) * np.float32(1 / np.sqrt(d)),
        "wk": (2 * uniform01(seed, 2, d, g * dh) - 1) * np.float32(1 / np.sqrt(d)),
        "wv": (2 * uniform01(seed, 3, d, g * dh) - 1) * np.float32(1 / np.sqrt(d)),
        "wo": (2 * uniform01(seed, 4, h * dh, d) - 1) * np.float32(1 / np.sqrt(h * dh)),
    }
    if decode:
        arrays["kc"] = 2 * uniform01(seed, 100, cache, g * dh) - 1
        arrays["vc"] = 2 * uniform01(seed, 101, cache, g * dh) - 1
    for name, a in arrays.items():
        a.astype(np.float32).tofile(os.path.join(out, name + ".bin"))
    meta = {"id": workload["id"], "d": d, "h": h, "g": g, "dh": dh, "n": n, "cache": cache, "decode": decode,
            "causal": bool(spec.get("causal", False)) or decode, "onnx": None}
    try:
        import torch  # noqa: F401  (Debian's python3-torch; optional)
        export_onnx(meta, arrays, os.path.join(out, "plain.onnx"))
        meta["onnx"] = "plain.onnx"
        if not decode and g == h:
            export_fused_onnx(meta, arrays, os.path.join(out, "fused.onnx"))
            meta["fused"] = "fused.onnx"
    except ImportError:
        meta["onnxMissing"] = "PyTorch is not installed (apt-get install python3-torch)"
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f)


# ---- NumPy peer ------------------------------------------------------------------------------------
def load(dirname):
    with open(os.path.join(dirname, "meta.json")) as f:
        m = json.load(f)
    d, h, g, dh, n, s = m["d"], m["h"], m["g"], m["dh"], m["n"], m["cache"]
    rd = lambda name, shape: np.fromfile(os.path.join(dirname, name + ".bin"), np.float32).reshape(shape)
    a = {"x": rd("x", (n, d)), "wq": rd("wq", (d, h * dh)), "wk": rd("wk", (d, g * dh)),
         "wv": rd("wv", (d, g * dh)), "wo": rd("wo", (h * dh, d))}
    if m["decode"]:
        # Laid out once as (G, S, dh), the layout a NumPy decoder would keep its cache in.
        a["kc"] = np.ascontiguousarray(rd("kc", (s, g, dh)).transpose(1, 0, 2))
        a["vc"] = np.ascontiguousarray(rd("vc", (s, g, dh)).transpose(1, 0, 2))
    return m, a


def numpy_prefill(m, a):
    """x (N, D) -> (N, D); the query heads of a group share one batched matmul against K_g."""
    n, h, g, dh = m["n"], m["h"], m["g"], m["dh"]
    x = a["x"]
    q = (x @ a["wq"]).reshape(n, g, h // g, dh).transpose(1, 2, 0, 3)  # (G, H/G, N, dh)
    k = (x @ a["wk"]).reshape(n, g, dh).transpose(1, 2, 0)[:, None]     # (G, 1, dh, N)
    v = (x @ a["wv"]).reshape(n, g, dh).transpose(1, 0, 2)[:, None]     # (G, 1, N, dh)
    s = q @ k                                                           # (G, H/G, N, N)
    s *= np.float32(1 / np.sqrt(dh))
    if m["causal"]:
        s += m["_mask"]
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=-1, keepdims=True)
    o = (s @ v).transpose(2, 0, 1, 3).reshape(n, h * dh)                # (N, H*dh)
    return o @ a["wo"]


def numpy_decode(m, a):
    """One token x (1, D) against the cache (G, S, dh) plus itself; the cache is read once per group."""
    h, g, dh = m["h"], m["g"], m["dh"]
    x = a["x"]
    q = (x @ a["wq"]).reshape(g, h // g, dh)                            # (G, H/G, dh)
    k1 = (x @ a["wk"]).reshape(g, dh, 1)                                # (G, dh, 1)
    v1 = (x @ a["wv"]).reshape(g, 1, dh)                                # (G, 1, dh)
    sc = np.concatenate([q @ a["kc"].transpose(0, 2, 1), q @ k1], axis=-1)  # (G, H/G, S+1)
    sc *= np.float32(1 / np.sqrt(dh))
    sc -= sc.max(axis=-1, keepdims=True)
    np.exp(sc, out=sc)
    sc /= sc.sum(axis=-1, keepdims=True)
    o = sc[:, :, :-1] @ a["vc"] + sc[:, :, -1:] * v1                   # (G, H/G, dh)
    return o.reshape(1, h * dh) @ a["wo"]


def run_numpy(dirname, rounds, iters):
    m, a = load(dirname)
    if m["causal"] and not m["decode"]:
        m["_mask"] = np.triu(np.full((m["n"], m["n"]), -np.inf, np.float32), 1)
    fn = numpy_decode if m["decode"] else numpy_prefill
    fn(m, a).astype(np.float32).tofile(os.path.join(dirname, "out-numpy.bin"))
    for _ in range(2):
        fn(m, a)
    meds = []
    for _ in range(rounds):
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter()
            fn(m, a)
            ts.append((time.perf_counter() - t0) * 1e3)
        meds.append(float(np.median(ts)))
    print(json.dumps({"ms": meds}))


# ---- ONNX export -----------------------------------------------------------------------------------
def export_onnx(meta, arrays, path):
    """A plain MatMul / Softmax graph; weights (and for decode the K/V cache) are graph initializers."""
    import torch

    h, g, dh, n, causal = meta["h"], meta["g"], meta["dh"], meta["n"], meta["causal"]
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}
    scale = 1.0 / float(np.sqrt(dh))

    class Prefill(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for k in ("wq", "wk", "wv", "wo"):
                self.register_buffer(k, t[k])
            self.register_buffer("mask", torch.triu(torch.full((n, n), float("-inf")), 1))

        def forward(self, x):  # x: (N, D)
            q = (x @ self.wq).reshape(n, g, h // g, dh).permute(1, 2, 0, 3)  # (G, H/G, N, dh)
            k = (x @ self.wk).reshape(n, g, dh).permute(1, 2, 0).unsqueeze(1)  # (G, 1, dh, N)
            v = (x @ self.wv).reshape(n, g, dh).permute(1, 0, 2).unsqueeze(1)  # (G, 1, N, dh)
            s = (q @ k) * scale
            if causal:
                s = s + self.mask
            p = torch.softmax(s, dim=-1)
            o = (p @ v).permute(2, 0, 1, 3).reshape(n, h * dh)
            return o @ self.wo

    class Decode(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for k in ("wq", "wk", "wv", "wo"):
                self.register_buffer(k, t[k])
            s = meta["cache"]
            self.register_buffer("kct", t["kc"].reshape(s, g, dh).permute(1, 2, 0).contiguous())  # (G, dh, S)
            self.register_buffer("vc", t["vc"].reshape(s, g, dh).permute(1, 0, 2).contiguous())   # (G, S, dh)

        def forward(self, x):  # x: (1, D); no copy of the cache: the new key's score is concatenated
            q = (x @ self.wq).reshape(g, h // g, dh)
            k1 = (x @ self.wk).reshape(g, dh, 1)
            v1 = (x @ self.wv).reshape(g, 1, dh)
            sc = torch.cat([q @ self.kct, q @ k1], dim=-1) * scale  # (G, H/G, S+1)
            p = torch.softmax(sc, dim=-1)
            o = p[:, :, :-1] @ self.vc + p[:, :, -1:] * v1           # (G, H/G, dh)
            return o.reshape(1, h * dh) @ self.wo

    model = Decode() if meta["decode"] else Prefill()
    with torch.no_grad():
        torch.onnx.export(model, (t["x"],), path, input_names=["x"], output_names=["y"], opset_version=17,
                          do_constant_folding=False)


def export_fused_onnx(meta, arrays, path):
    """MHA through ONNX Runtime's fused com.microsoft.MultiHeadAttention op (causal: unidirectional=1)."""
    import torch

    h, n, d, causal = meta["h"], meta["n"], meta["d"], meta["causal"]
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}

    class FusedMha(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v):  # only traced for shapes: the exported graph holds the fused op
            return q.clone()

        @staticmethod
        def symbolic(g, q, k, v):
            attrs = {"num_heads_i": h}
            if causal:
                attrs["unidirectional_i"] = 1
            return g.op("com.microsoft::MultiHeadAttention", q, k, v, **attrs)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for k in ("wq", "wk", "wv", "wo"):
                self.register_buffer(k, t[k])

        def forward(self, x):  # x: (N, D) -> q, k, v: (1, N, D) -> (N, D)
            q, k, v = [(x @ w).reshape(1, n, d) for w in (self.wq, self.wk, self.wv)]
            return FusedMha.apply(q, k, v).reshape(n, d) @ self.wo

    with torch.no_grad():
        torch.onnx.export(Model(), (t["x"],), path, input_names=["x"], output_names=["y"], opset_version=17,
                          do_constant_folding=False, custom_opsets={"com.microsoft": 1})


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        with open(sys.argv[2]) as f:
            prepare(json.load(f), sys.argv[3])
    elif sys.argv[1] == "numpy":
        run_numpy(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(__doc__)
