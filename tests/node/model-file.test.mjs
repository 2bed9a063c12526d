// model-file.test.mjs: trainer.exportModel() writes a .safetensors file that Python opens without
// this project: Debian's python3 with torch and numpy reads it with json + struct (the safetensors
// package is not installed), checks the header as docs/api.md states it (F32, contiguous offsets in
// name order, the config in __metadata__, the CRC-32 with zlib), and recomputes the model's
// attention maps in PyTorch from the weights, which must equal trainer.attention(tokens).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { REPO, load } from './helpers.mjs';
import { editModelFile } from './model-file-kit.mjs';

const PYTHON = process.env.PYTHON || '/usr/bin/python3';

// The Python block of docs/api.md ("The model file") and the output printed under it.
const DOC = fs.readFileSync(path.join(REPO, 'docs', 'api.md'), 'utf8');
const DOC_BLOCK = /### The model file[\s\S]*?```python\n([\s\S]*?)```\n```text\n([\s\S]*?)```/.exec(DOC);

// The reader of docs/api.md ("The model file"), then a forward pass of the attention layers (no
// MLP here; LayerNorm on) in PyTorch, printing one JSON line.
const READER = String.raw`
import json, struct, sys, zlib
import numpy as np, torch

def read_model(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    header = json.loads(b[8:8 + n])
    meta = header.pop("__metadata__")
    data = b[8 + n:]
    tensors = {name: torch.from_numpy(np.frombuffer(data, dtype="<f4", count=int(np.prod(t["shape"])),
                                                    offset=t["data_offsets"][0]).reshape(t["shape"]).copy())
               for name, t in header.items()}
    return header, meta, data, tensors

header, meta, data, w = read_model(sys.argv[1])
tokens = json.loads(sys.argv[2])
raw = open(sys.argv[1], "rb").read()
at = raw.index(b'"crc32":"', 8) + 9                               # the CRC-32 of the whole file, its digits as zeros
crc_ok = format(zlib.crc32(raw[:at] + b"00000000" + raw[at + 8:]), "08x") == meta["crc32"]
names = sorted(header)
offsets_ok = header[names[0]]["data_offsets"][0] == 0 and all(
    header[a]["data_offsets"][1] == header[b]["data_offsets"][0] for a, b in zip(names, names[1:])) and \
    header[names[-1]]["data_offsets"][1] == len(data)
dtypes_ok = all(t["dtype"] == "F32" for t in header.values())

H, D, L = int(meta["nHeads"]), int(meta["dModel"]), int(meta["nLayers"])
G = int(meta.get("nKvHeads", H))
N = len(tokens)
def ln(x, p):
    m = x.mean(-1, keepdim=True)
    v = ((x - m) ** 2).mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(v + 1e-5) * w[p + ".weight"] + w[p + ".bias"]
x = w["wte"][tokens] + w["wpe"][:N]                                  # (N, D)
maps = []
for l in range(L):
    a = f"layers.{l}."
    h = ln(x, a + "ln1")
    q, k, v = h @ w[a + "attn.wq"], h @ w[a + "attn.wk"], h @ w[a + "attn.wv"]   # y = x W
    dh = q.shape[1] // H
    q = q.view(N, H, dh).transpose(0, 1)                               # (H, N, dh)
    k = k.view(N, G, dh).transpose(0, 1).repeat_interleave(H // G, 0)  # (H, N, dh)
    v = v.view(N, G, dh).transpose(0, 1).repeat_interleave(H // G, 0)
    s = q @ k.transpose(1, 2) / dh ** 0.5
    s = s.masked_fill(torch.triu(torch.ones(N, N, dtype=torch.bool), 1), float("-inf"))
    p = torch.softmax(s, -1)                                           # (H, N, N)
    maps.append(p)
    x = x + (p @ v).transpose(0, 1).reshape(N, H * dh) @ w[a + "attn.wo"]
print(json.dumps({"crc_ok": crc_ok, "offsets_ok": offsets_ok, "dtypes_ok": dtypes_ok,
                  "tensors": len(header), "task": meta["task"], "step": meta["step"],
                  "maps": torch.stack(maps).flatten().tolist()}))
`;

describe('the model file in Python (python3-torch, no safetensors package)', () => {
  let attn;
  let dir;
  before(async () => {
    attn = await load(true);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-model-'));
  });

  test('Python reads the export with json + struct: checksum, layout, and the attention maps of the weights', () => {
    const t = attn.createTrainer({ task: 'copy', seqLen: 12, batchSize: 8, learningRate: 1e-2, seed: 4,
      model: { variant: 'gqa', dModel: 32, nHeads: 4, nKvHeads: 2, nLayers: 2, layerNorm: true } });
    t.step(20);
    const bytes = t.exportModel();
    const tokens = [3, 1, 4, 1, 5, 9, 2, 6, 15, 3];
    const { weights } = t.attention(tokens);
    t.dispose();
    const file = path.join(dir, 'lab.safetensors');
    fs.writeFileSync(file, bytes);
    fs.writeFileSync(path.join(dir, 'read.py'), READER);
    const run = spawnSync(PYTHON, ['read.py', file, JSON.stringify(tokens)], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, `python failed:\n${run.stderr}`);
    const r = JSON.parse(run.stdout);
    assert.deepEqual([r.crc_ok, r.offsets_ok, r.dtypes_ok], [true, true, true]);
    // 2 layers x (ln1.weight, ln1.bias, wq, wk, wv, wo) + wte, wpe, lnf.weight, lnf.bias, unembed = 17, x 3
    assert.equal(r.tensors, 51);
    assert.equal(r.task, 'copy');
    assert.equal(r.step, '20');
    assert.equal(r.maps.length, weights.length);
    let worst = 0;
    for (let i = 0; i < weights.length; i++) worst = Math.max(worst, Math.abs(r.maps[i] - weights[i]));
    assert.ok(worst < 1e-5, `PyTorch's maps differ from the trainer's by ${worst}`);

    // the reader of docs/api.md, as printed there
    assert.ok(DOC_BLOCK, 'docs/api.md has no python block with its output under "The model file"');
    fs.writeFileSync(path.join(dir, 'lab.safetensors'), bytes);
    fs.writeFileSync(path.join(dir, 'doc.py'), DOC_BLOCK[1]);
    const doc = spawnSync(PYTHON, ['doc.py'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.equal(doc.status, 0, `docs/api.md's reader failed:\n${doc.stderr}`);
    assert.equal(doc.stdout, DOC_BLOCK[2]);
    // and it refuses a changed file
    const changed = bytes.slice();
    changed[changed.length - 1] ^= 1;
    fs.writeFileSync(path.join(dir, 'lab.safetensors'), changed);
    const refused = spawnSync(PYTHON, ['doc.py'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /changed or damaged file/);

    // the comparison can fail: the same program on a file with one weight of wq nudged reports it
    const nudged = editModelFile(bytes, (meta, w) => { w['layers.0.attn.wq'].data[0] += 0.5; });
    fs.writeFileSync(file, nudged);
    const bad = JSON.parse(spawnSync(PYTHON, ['read.py', file, JSON.stringify(tokens)], { cwd: dir, encoding: 'utf8' }).stdout);
    assert.equal(bad.crc_ok, true);
    let moved = 0;
    for (let i = 0; i < weights.length; i++) moved = Math.max(moved, Math.abs(bad.maps[i] - weights[i]));
    assert.ok(moved > 1e-3, `a nudged wq moved the maps by only ${moved}`);
  });
});
