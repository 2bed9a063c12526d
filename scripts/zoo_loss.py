#!/usr/bin/python3
"""The held-out loss of a bundled (zoo) checkpoint, recomputed with PyTorch from its files alone.

  zoo_loss.py CHECKPOINT_DIR HELDOUT_TOKENS_BIN PROBE_JSON
      prints one JSON line {"loss": nats/token, "bitsPerToken", "windows", "tokens"}

CHECKPOINT_DIR is a Hugging Face folder (config.json, model.safetensors) of model_type llama or
deepseek_v2; HELDOUT_TOKENS_BIN the held-out token ids (uint16 little-endian) and PROBE_JSON the
evaluation windows' starts in them (both written by `npm run zoo`: tests/fixtures/zoo-heldout/). The
loss is the mean cross-entropy of every position of every window (seqLen tokens, each predicting
the next), as the trainer's evaluate() defines it (docs/api.md, "Training").

The forward passes are the PyTorch references of scripts/gen_pretrained_fixtures.py (written from the
Hugging Face modeling files' eager paths, reference/hf-models.md, not from the core), run in float64
on the file's stored values: here they read the checkpoint's tensors instead of drawing random ones.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pretrained_fixtures import deepseek_v2, llama_like  # noqa: E402


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    dtypes = {"F16": np.float16, "F32": np.float32}
    base = 8 + n
    return {k: torch.from_numpy(np.frombuffer(data[base + v["data_offsets"][0]:base + v["data_offsets"][1]],
                                              dtypes[v["dtype"]]).astype(np.float64).reshape(v["shape"]))
            for k, v in header.items()}


class FileWeights:
    """What the references ask of their random-weight Maker, answered from a checkpoint: each call
    returns the stored tensor of that name (widened to float64), after checking its shape."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.used = set()

    def get(self, name, *shape):
        t = self.tensors[name]
        if shape and tuple(t.shape) != tuple(shape):
            raise ValueError(f"{name}: shape {tuple(t.shape)}, the architecture says {shape}")
        self.used.add(name)
        return t

    def linear(self, name, out_f, in_f, gain=1.0):
        return self.get(name, out_f, in_f)

    def embed(self, name, rows, cols):
        return self.get(name, rows, cols)

    def norm(self, name, n):
        return self.get(name, n)

    bias = norm


def main():
    folder, heldout_file, probe_file = sys.argv[1:4]
    config = json.load(open(os.path.join(folder, "config.json")))
    weights = FileWeights(read_safetensors(os.path.join(folder, "model.safetensors")))
    forward = {"llama": llama_like, "deepseek_v2": deepseek_v2}[config["model_type"]]
    ids = np.frombuffer(open(heldout_file, "rb").read(), "<u2").astype(np.int64)
    probe = json.load(open(probe_file))
    n = probe["seqLen"]
    total, count = 0.0, 0
    with torch.no_grad():
        for start in probe["evalStarts"]:
            window = torch.from_numpy(ids[start:start + n + 1].copy())
            logits, _, _ = forward(config, weights, window[:n])
            total += F.cross_entropy(logits, window[1:], reduction="sum").item()
            count += n
    unused = set(weights.tensors) - weights.used
    if unused:
        raise ValueError(f"tensors the architecture never read: {sorted(unused)}")
    loss = total / count
    print(json.dumps({"loss": loss, "bitsPerToken": loss / np.log(2), "windows": len(probe["evalStarts"]), "tokens": count}))


if __name__ == "__main__":
    main()
