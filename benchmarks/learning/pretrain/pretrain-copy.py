#!/usr/bin/env python3
"""Pretrains a byte-level Qwen2 model of tiny-1m's shape to copy by content, on a GPU, with PyTorch.

Why: tiny-1m, trained from scratch by `turngym train sft` on wiki episodes, never learnt to copy a title from
the question or from a page it saw earlier (NOTES.md, fourth round): it needs an induction circuit, which
forms only after a long plateau, and on this CPU a few hundred steps were all that fit. A pretrained base is
what a real model would bring. This script makes one on a lent GPU in minutes; the project's own loaders read
the result (an HF checkpoint: config.json, model.safetensors, tokenizer.json) and the rest of the pipeline
(SFT, GRPO, Tree-GRPO) runs on CPU as before.

The corpus is generated here, from a seed, and is about no test question:
  - name streams: a handful of made-up names, each said many times at random distances, so every repeat
    after its first letters is predictable only by finding the earlier one (induction);
  - page walks: pages of *another* synthetic world (`export-pages.js --corpus-seed 2`; the tasks use world 1),
    each followed by a page one of its links names, so a `# Title` line repeats a `[label]` seen earlier;
  - associative recall: `key = value` lists, then keys asked again;
  - number comparisons: which of two years, heights or populations is larger or smaller.
Every token is trained on (plain next-token loss). The copy probe it reports uses names no row holds: a name of
three random words, other fresh names for a set number of characters, then the name again; it gives the loss
per letter of the repeat, at distances of 20 to 700 characters.

  python3 pretrain-copy.py --template <tiny-1m checkpoint dir> --pages pages.jsonl --out <dir> [--minutes 6]
  python3 pretrain-copy.py --check <checkpoint dir>     # prints the NLL of CHECK_TEXT (compare: turngym lm score)
"""
import argparse
import json
import math
import os
import random
import shutil
import sys
import time
from multiprocessing import Pool

import numpy as np
import torch
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import save_file
from transformers import Qwen2Config, Qwen2ForCausalLM

EOT, IM_START, IM_END = 256, 257, 258
SEQ = 1024
CHECK_TEXT = "Question: Which was published earlier: The Amber Ferry or Burning Compasses?\nNAVIGATE(The Amber Ferry)"
TEMPLATE_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")


def encode(text):
    """The byte tokenizer: one id per UTF-8 byte (ByteTokenizer in @turngym/lm)."""
    return list(text.encode("utf-8"))


def chat_turn(role, text):
    return [IM_START] + encode(f"{role}\n{text}") + [IM_END] + encode("\n")


# ---- the corpus -------------------------------------------------------------------------------------------

PAGES = []  # [(title, text)]
TITLE_INDEX = {}
LINKS = []  # per page: indices of pages its [labels] name


def load_pages(path):
    global PAGES, TITLE_INDEX, LINKS
    with open(path) as f:
        PAGES = [(p["title"], p["text"]) for p in map(json.loads, f) if p]
    TITLE_INDEX = {title: i for i, (title, _) in enumerate(PAGES)}
    LINKS = []
    for _, text in PAGES:
        labels = [part.split("]")[0] for part in text.split("[")[1:]]
        LINKS.append([TITLE_INDEX[label] for label in labels if label in TITLE_INDEX])


def random_word(rng):
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 10)))
    return word.capitalize()


def random_name(rng):
    if PAGES and rng.random() < 0.5:
        return PAGES[rng.randrange(len(PAGES))][0]
    return " ".join(random_word(rng) for _ in range(rng.randint(1, 3)))


def number(rng):
    kind = rng.randrange(3)
    if kind == 0:
        return str(rng.randint(1000, 2020))
    if kind == 1:
        return f"{rng.randint(1, 4000):,} m"
    return f"{rng.randint(1000, 90_000_000):,}"


def name_stream(rng):
    pool = [random_name(rng) for _ in range(rng.randint(3, 10))]
    parts = []
    separators = [", ", "; ", "\n", " and ", " or ", ". ", " then "]
    for _ in range(rng.randint(10, 40)):
        parts.append(rng.choice(pool))
        if rng.random() < 0.3:  # filler, so the distance to the earlier mention varies
            parts.append(rng.choice(separators))
            parts.append(" ".join(rng.choice([random_word(rng).lower(), number(rng)]) for _ in range(rng.randint(1, 12))))
        parts.append(rng.choice(separators))
    return encode("".join(parts))


def page_walk(rng):
    page = rng.randrange(len(PAGES))
    chat = rng.random() < 0.5
    out = []
    for _ in range(rng.randint(2, 6)):
        text = PAGES[page][1]
        out += chat_turn("user", text) if chat else encode(text + "\n\n")
        links = LINKS[page]
        page = rng.choice(links) if links and rng.random() < 0.85 else rng.randrange(len(PAGES))
    return out


def recall(rng):
    pairs = [(random_name(rng), rng.choice([number(rng), random_name(rng)])) for _ in range(rng.randint(2, 8))]
    lines = [f"{key} = {value}" for key, value in pairs]
    for _ in range(rng.randint(1, 6)):
        key, value = rng.choice(pairs)
        lines.append(f"{key}? {value}")
    return encode("\n".join(lines) + "\n\n")


def compare(rng):
    lines = []
    for _ in range(rng.randint(1, 6)):
        kind = rng.randrange(3)
        if kind == 0:
            a, b = rng.sample(range(1000, 2021), 2)
            word = rng.choice(["earlier", "later"])
            answer = min(a, b) if word == "earlier" else max(a, b)
            lines.append(f"Which is {word}: {a} or {b}? {answer}")
        else:
            low, high = (1, 4000) if kind == 1 else (1000, 90_000_000)
            a, b = rng.sample(range(low, high), 2)
            unit = " m" if kind == 1 else ""
            word = rng.choice(["larger", "smaller"])
            answer = max(a, b) if word == "larger" else min(a, b)
            lines.append(f"Which is {word}: {a:,}{unit} or {b:,}{unit}? {answer:,}{unit}")
    return encode("\n".join(lines) + "\n\n")


KINDS = [(name_stream, 0.35), (page_walk, 0.35), (recall, 0.15), (compare, 0.15)]


def make_rows(args):
    """`count` packed rows of SEQ + 1 tokens (documents joined by <|endoftext|>), from one seed."""
    seed, count = args
    rng = random.Random(seed)
    makers, weights = zip(*KINDS)
    rows = np.empty((count, SEQ + 1), dtype=np.int16)
    for r in range(count):
        tokens = []
        while len(tokens) < SEQ + 1:
            tokens += rng.choices(makers, weights)[0](rng) + [EOT]
        rows[r] = tokens[: SEQ + 1]
    return rows


# ---- the copy probe ---------------------------------------------------------------------------------------


def probe_rows(rng, distance, count=16):
    """A fresh random name, `distance` characters of other fresh names, then the name again."""
    rows = []
    for _ in range(count):
        name = " ".join(random_word(rng) for _ in range(3))
        filler = ""
        while len(filler) < distance:
            filler += random_word(rng) + ", "
        text = f"{name}, {filler[:distance]}, {name}."
        rows.append((encode(text), len(text) - len(name) - 1))
    return rows


@torch.no_grad()
def copy_probe(model, seed=99):
    """Nats per letter of the repeated name, by distance: all its letters, and from the third letter on."""
    rng = random.Random(seed)
    model.eval()
    out = {}
    for distance in (20, 80, 150, 250, 400, 700):
        all_letters, later = [], []
        for tokens, start in probe_rows(rng, distance):
            ids = torch.tensor([tokens], device="cuda")
            logprobs = torch.log_softmax(model(input_ids=ids).logits.float(), -1)
            nll = -logprobs[0, :-1].gather(-1, ids[0, 1:, None])[:, 0]
            # nll[j] is the loss of token j + 1; the name's letters are tokens start … len - 2 (a '.' ends it)
            all_letters.append(nll[start - 1 : -1])
            later.append(nll[start + 1 : -1])
        out[distance] = (torch.cat(all_letters).mean().item(), torch.cat(later).mean().item())
    model.train()
    return out


# ---- checkpoints ------------------------------------------------------------------------------------------


def load(directory):
    config = Qwen2Config.from_pretrained(directory)
    model = Qwen2ForCausalLM(config)
    with safe_open(os.path.join(directory, "model.safetensors"), "pt") as f:
        state = {key: f.get_tensor(key) for key in f.keys()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [key for key in missing if key != "lm_head.weight"]  # tied to the embeddings
    if missing or unexpected:
        sys.exit(f"{directory}: weights do not match Qwen2ForCausalLM: missing {missing}, unexpected {unexpected}")
    return model, sorted(state)


def save(model, names, template, out):
    os.makedirs(out, exist_ok=True)
    state = model.state_dict()
    save_file({key: state[key].detach().float().contiguous().cpu() for key in names}, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    for name in TEMPLATE_FILES:
        if os.path.exists(os.path.join(template, name)):
            shutil.copy(os.path.join(template, name), os.path.join(out, name))


@torch.no_grad()
def check(directory):
    model, _ = load(directory)
    ids = torch.tensor([encode(CHECK_TEXT)])
    logprobs = torch.log_softmax(model(input_ids=ids).logits.float(), -1)
    nll = -logprobs[0, :-1].gather(-1, ids[0, 1:, None])[:, 0]
    print(f"check {directory}: mean NLL {nll.mean().item():.6f} over {nll.numel()} tokens; first {nll[:4].tolist()}")


# ---- training ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--template", help="a tiny-1m checkpoint dir: its config, tokenizer and weight names")
    parser.add_argument("--pages", help="pages JSONL from export-pages.js (another world than the tasks')")
    parser.add_argument("--out", help="where the pretrained checkpoint goes")
    parser.add_argument("--check", nargs="*", default=[], help="checkpoint dirs to score CHECK_TEXT with, then exit")
    parser.add_argument("--minutes", type=float, default=6.0, help="training time; sets the step count")
    parser.add_argument("--steps", type=int, help="exact step count (overrides --minutes)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--rows", type=int, default=160_000, help="packed rows generated (1,025 tokens each)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for directory in args.check:
        check(directory)
    if args.check and not args.template:
        return
    if not (args.template and args.pages and args.out):
        parser.error("--template, --pages and --out are required to train")

    started = time.time()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    load_pages(args.pages)
    workers = min(16, os.cpu_count() or 1)
    chunks = [(args.seed * 1_000_003 + i, args.rows // (workers * 4)) for i in range(workers * 4)]
    with Pool(workers, initializer=load_pages, initargs=(args.pages,)) as pool:
        data = torch.from_numpy(np.concatenate(pool.map(make_rows, chunks)).astype(np.int64))
    print(f"corpus: {data.shape[0]} rows × {SEQ + 1} tokens from {len(PAGES)} pages, {time.time() - started:.0f} s", flush=True)

    template_model, names = load(args.template)
    model = Qwen2ForCausalLM(template_model.config).cuda()  # fresh weights (seeded), tiny-1m's shape
    del template_model
    print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters", flush=True)
    data = data.cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.01, fused=True)
    generator = torch.Generator(device="cuda").manual_seed(args.seed)

    def step(lr):
        for group in optimizer.param_groups:
            group["lr"] = lr
        batch = data[torch.randint(0, data.shape[0], (args.batch,), device="cuda", generator=generator)]
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(input_ids=batch[:, :-1]).logits
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss

    warmup = 200
    steps = args.steps
    if steps is None:  # time a few warm-up steps, then fit the cosine schedule into the minutes given
        for i in range(20):  # the first steps pay for kernel selection and allocation
            step(args.lr * (i + 1) / warmup)
        torch.cuda.synchronize()
        t0 = time.time()
        for i in range(20, 70):
            step(args.lr * (i + 1) / warmup)
        torch.cuda.synchronize()
        per_step = (time.time() - t0) / 50
        steps = max(warmup * 2, int(args.minutes * 60 / per_step))
        print(f"{per_step * 1000:.1f} ms/step → {steps} steps in {args.minutes} min", flush=True)
    losses = []
    for i in range(steps):
        lr = args.lr * min(1.0, (i + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * i / steps)))
        losses.append(step(lr))
        if (i + 1) % max(1, steps // 12) == 0 or i + 1 == steps:
            train = torch.stack(losses).mean().item()
            losses = []
            probe = " ".join(f"{d}:{a:.2f}/{b:.2f}" for d, (a, b) in copy_probe(model).items())
            print(f"step {i + 1} lr {lr:.2e} loss {train:.3f} probe(dist:all/≥2) {probe} [{time.time() - started:.0f} s]", flush=True)
    save(model.float(), names, args.template, args.out)
    json.dump({**vars(args), "steps": steps, "seconds": round(time.time() - started)}, open(os.path.join(args.out, "pretrain.json"), "w"), indent=2)
    print(f"saved {args.out}", flush=True)
    check(args.out)


if __name__ == "__main__":
    main()
