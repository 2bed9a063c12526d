#!/usr/bin/python3
"""The Python side of `npm run bench:peers` (scripts/bench-peers.mjs): workload data, ONNX export, NumPy peer.

  bench_peers.py prepare WORKLOAD_JSON DIR   write DIR/{meta.json, x.bin, wq.bin, wk.bin, wv.bin, wo.bin
                                             [, kc.bin, vc.bin]} (float32, row-major) and, when PyTorch is
                                             installed, DIR/plain.onnx (torch.onnx.export)
  bench_peers.py numpy DIR ROUNDS ITERS      the NumPy peer: compute once, write DIR/out-numpy.bin, then
                                             print one JSON line {"ms": [...], "cpuMs": [...]}: a median
                                             wall and CPU time per round
  bench_peers.py train-check DIR             training (T3): PyTorch in float64 on our step-0 weights and
                                             our first batch; our loss and gradients (from the exported
                                             step-1 AdamW moments) against it; prints one JSON line
  bench_peers.py train DIR THREADS STEPS     the PyTorch peer of a training workload: the same model from
                                             our step-0 weights, the same batches and AdamW, THREADS
                                             threads (0: PyTorch's default), STEPS timed steps after 10
                                             warm-up steps; prints {"msPerStep", "cpuMsPerStep", "loss",
                                             "threads"}

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
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
    meds, cpu = [], []
    for _ in range(rounds):
        ts, cs = [], []
        for _ in range(iters):
            t0, c0 = time.perf_counter(), time.process_time()
            fn(m, a)
            cs.append((time.process_time() - c0) * 1e3)
            ts.append((time.perf_counter() - t0) * 1e3)
        meds.append(float(np.median(ts)))
        cpu.append(float(np.median(cs)))
    print(json.dumps({"ms": meds, "cpuMs": cpu}))


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


# ---- training: the baby-GPT step in PyTorch --------------------------------------------------------
# The model of core/src/train/model.cpp, written out with our parameter names and layouts (x @ W, W
# (d_in, d_out)): x = wte[tokens] + wpe[pos]; per layer x += attn(LN1(x)), x += mlp(LN2(x)) with
# mlp = GELU_tanh(h w1 + b1) w2 + b2; xf = LNf(x); logits = xf wte^T (tied); mean cross-entropy.
# LayerNorm eps 1e-5; attention MHA, causal, scale 1/sqrt(dh), no biases. AdamW as core/src/train/
# adam.cpp: betas (0.9, 0.999), eps 1e-8, decoupled weight decay on the matrices and embeddings,
# learning rate warm-up then cosine to 0.1 x (learning_rate_at).
M64_MASK = 0xFFFFFFFFFFFFFFFF


class Rng:
    """core/src/train/tasks.cpp's splitmix64 stream."""

    def __init__(self, state):
        self.state = state & M64_MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64_MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64_MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64_MASK
        return z ^ (z >> 31)

    def below(self, n):
        return 0 if n <= 1 else self.next() % n


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    tensors = {k: np.frombuffer(data[base + v["data_offsets"][0]:base + v["data_offsets"][1]], np.float32)
                  .reshape(v["shape"]) for k, v in header.items()}
    return tensors, meta


class TrainSetup:
    """Our trainer's data and schedule for a chars workload (spec as in bench/workloads.json)."""

    def __init__(self, workload, text):
        spec = workload["spec"]
        self.n, self.batch = spec["seqLen"], spec["batchSize"]
        m = spec["model"]
        self.d, self.h, self.layers = m["dModel"], m["nHeads"], m["nLayers"]
        self.lr = spec.get("learningRate", 3e-3)
        self.total = spec.get("totalSteps", 2000)
        self.warmup = spec.get("warmupSteps", min(100, self.total // 10))
        self.wd = spec.get("weightDecay", 0.01)
        cps = [ord(c) for c in text]
        alphabet = sorted(set(cps))
        index = {c: i for i, c in enumerate(alphabet)}
        ids = np.array([index[c] for c in cps], np.int64)
        self.train_ids = ids[:len(ids) * 9 // 10]
        self.rng = Rng(spec.get("seed", 0) ^ 0x5DEECE66D)

    def sample(self):
        starts = [self.rng.below(len(self.train_ids) - self.n) for _ in range(self.batch)]
        tokens = np.stack([self.train_ids[s:s + self.n] for s in starts])
        targets = np.stack([self.train_ids[s + 1:s + self.n + 1] for s in starts])
        return tokens, targets

    def lr_at(self, t):
        if t < self.warmup:
            return self.lr * (t + 1) / self.warmup
        if self.total <= self.warmup:
            return self.lr
        if t >= self.total:
            return self.lr * 0.1
        progress = (t - self.warmup) / (self.total - self.warmup)
        return self.lr * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * progress)))


def torch_params(tensors, dtype):
    import torch
    return {k: torch.tensor(v, dtype=dtype, requires_grad=True) for k, v in tensors.items() if not k.startswith("optim.")}


def torch_loss(p, setup, tokens, targets):
    import torch
    import torch.nn.functional as F

    b, n, d, h = tokens.shape[0], tokens.shape[1], setup.d, setup.h
    dh = d // h
    tok = torch.from_numpy(tokens)
    x = p["wte"][tok] + p["wpe"][:n]                                               # (B, N, D)
    mask = torch.triu(torch.full((n, n), float("-inf"), dtype=x.dtype), 1)
    for l in range(setup.layers):
        q = lambda name: p[f"layers.{l}.{name}"]
        a = F.layer_norm(x, (d,), q("ln1.weight"), q("ln1.bias"), 1e-5)
        heads = lambda t: t.reshape(b, n, h, dh).transpose(1, 2)                   # (B, H, N, dh)
        qh, kh, vh = heads(a @ q("attn.wq")), heads(a @ q("attn.wk")), heads(a @ q("attn.wv"))
        att = torch.softmax((qh @ kh.transpose(-1, -2)) * (1.0 / np.sqrt(dh)) + mask, dim=-1)
        o = (att @ vh).transpose(1, 2).reshape(b, n, d)
        x = x + o @ q("attn.wo")
        m = F.layer_norm(x, (d,), q("ln2.weight"), q("ln2.bias"), 1e-5)
        x = x + F.gelu(m @ q("mlp.w1") + q("mlp.b1"), approximate="tanh") @ q("mlp.w2") + q("mlp.b2")
    xf = F.layer_norm(x, (d,), p["lnf.weight"], p["lnf.bias"], 1e-5)
    logits = xf @ p["wte"].t()                                                     # (B, N, V)
    return F.cross_entropy(logits.reshape(b * n, -1), torch.from_numpy(targets).reshape(-1))


def train_check(dirname):
    """Our loss and gradients of step 1 (FMA and SIMD builds) against PyTorch in float64."""
    import torch

    with open(os.path.join(dirname, "workload.json")) as f:
        workload = json.load(f)
    with open(os.path.join(REPO, workload["textFile"]), encoding="utf-8", newline="") as f:
        setup = TrainSetup(workload, f.read())
    w0, _ = read_safetensors(os.path.join(dirname, "ours-step0.safetensors"))
    tokens, targets = setup.sample()  # our trainer's first batch
    out = {}
    refs = {}
    for name, dtype in (("torch64", torch.float64), ("torch32", torch.float32)):
        p = torch_params(w0, dtype)
        loss = torch_loss(p, setup, tokens, targets)
        loss.backward()
        refs[name] = (float(loss), {k: v.grad.double().numpy() for k, v in p.items()})
    loss64, g64 = refs["torch64"]
    out["torch64"] = {"loss": loss64}

    def compare(loss, grads):
        worst, at = 0.0, ""
        for k, ref in g64.items():
            d = float(np.abs(grads[k] - ref).max() / max(np.abs(ref).max(), 1e-30))
            if d > worst:
                worst, at = d, k
        return {"loss": loss, "lossRel": abs(loss - loss64) / abs(loss64), "gradRel": worst, "gradWorst": at}

    out["torch32"] = compare(*refs["torch32"])
    beta1 = float(np.float32(1) - np.float32(0.9))  # AdamW's first moment after one step: (1 - b1) g, in float32
    for build in ("fma", "simd"):
        path = os.path.join(dirname, f"ours-step1-{build}.safetensors")
        if not os.path.exists(path):
            continue
        w1, _ = read_safetensors(path)
        with open(os.path.join(dirname, f"ours-step1-{build}.json")) as f:
            loss = json.load(f)["loss"]
        grads = {k: w1["optim.exp_avg." + k].astype(np.float64) / beta1 for k in g64}
        out[build] = compare(loss, grads)
    print(json.dumps(out))


def train_torch(dirname, threads, steps):
    import torch

    if threads > 0:
        torch.set_num_threads(threads)
    with open(os.path.join(dirname, "workload.json")) as f:
        workload = json.load(f)
    with open(os.path.join(REPO, workload["textFile"]), encoding="utf-8", newline="") as f:
        setup = TrainSetup(workload, f.read())
    w0, _ = read_safetensors(os.path.join(dirname, "ours-step0.safetensors"))
    p = torch_params(w0, torch.float32)
    no_decay = lambda k: k.endswith((".weight", ".bias", ".b1", ".b2"))  # LayerNorm gains and biases
    opt = torch.optim.AdamW([{"params": [v for k, v in p.items() if not no_decay(k)], "weight_decay": setup.wd},
                             {"params": [v for k, v in p.items() if no_decay(k)], "weight_decay": 0.0}],
                            lr=setup.lr, betas=(0.9, 0.999), eps=1e-8)

    def step(t):
        for g in opt.param_groups:
            g["lr"] = setup.lr_at(t)
        tokens, targets = setup.sample()
        opt.zero_grad(set_to_none=True)
        loss = torch_loss(p, setup, tokens, targets)
        loss.backward()
        opt.step()
        return float(loss)

    for t in range(10):
        step(t)
    t0, c0 = time.perf_counter(), time.process_time()
    for t in range(10, 10 + steps):
        loss = step(t)
    ms = (time.perf_counter() - t0) * 1e3 / steps
    cpu = (time.process_time() - c0) * 1e3 / steps  # all threads' CPU time: meaningful for one thread
    print(json.dumps({"msPerStep": ms, "cpuMsPerStep": cpu, "loss": loss, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        with open(sys.argv[2]) as f:
            prepare(json.load(f), sys.argv[3])
    elif sys.argv[1] == "numpy":
        run_numpy(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1] == "train-check":
        train_check(sys.argv[2])
    elif sys.argv[1] == "train":
        train_torch(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit(__doc__)
