#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Replays the traces of tests/device/traces through PyTorch's own CUDA caching
allocator and through `gpu-memory-lab replay`, and compares torch.cuda.memory_stats()
with replay's output key by key.

Run by run-device-checks.sh on a machine with an NVIDIA GPU and PyTorch:

    compare_with_torch.py --gml BUILD/src/gpu-memory-lab --traces tests/device/traces \
                          --results OUT/RESULTS.md

Every trace runs in a fresh Python process ("torch-worker" below) because
PYTORCH_ALLOC_CONF (PYTORCH_CUDA_ALLOC_CONF before PyTorch 2.9; both are set) is read
once, when the allocator starts, and the peaks and counters must start from zero.
Exit status: 0 when every compared key agrees, 1 when some differ, 2 when something
could not run at all.

Each op of the trace format has its torch counterpart here: alloc (torch.empty on
the op's stream: 0 is the default stream, every other number a torch.cuda.Stream of
its own), free (del), empty_cache, record_stream (tensor.record_stream on that
stream, which is first kept busy with torch.cuda._sleep so that the block really
waits, as the lab's model has it: a stream's work is done at the next synchronize),
synchronize (torch.cuda.synchronize, or that stream's synchronize) and
set_memory_fraction (torch.cuda.set_per_process_memory_fraction).
"""

import argparse
import json
import os
import re
import subprocess
import sys

# The keys replay prints, in its order.  largest_free_block_bytes is not a
# memory_stats() key: the worker derives it from torch.cuda.memory_snapshot().
KEYS = [
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "reserved_bytes.all.current",
    "reserved_bytes.all.peak",
    "active_bytes.all.current",
    "requested_bytes.all.current",
    "inactive_split_bytes.all.current",
    "segment.all.current",
    "segment.small_pool.current",
    "segment.large_pool.current",
    "allocation.all.current",
    "num_alloc_retries",
    "num_ooms",
    "num_device_alloc",
    "num_device_free",
    "largest_free_block_bytes",
    "last_oom_message",
]

TRIED_RE = re.compile(r"Tried to allocate ([0-9.]+ [KMGT]?i?B)")
ALLOWED_RE = re.compile(r"([0-9.]+ [KMGT]?i?B) allowed;")


# --------------------------------------------------------------------------- torch side

# GPU cycles a record_stream's stream is kept busy: well over a second on any GPU,
# longer than the host takes to reach the trace's next synchronize.
BUSY_CYCLES = 4_000_000_000


def torch_worker(trace_path, allowed_bytes):
    """Runs in its own process; prints one JSON object on stdout."""
    import torch

    if not torch.cuda.is_available():
        print(json.dumps({"error": "torch.cuda.is_available() is False"}))
        return 2

    torch.cuda.init()
    # cudaMemGetInfo's total is what c10 multiplies the fraction by.
    free, total = torch.cuda.mem_get_info(0)
    info = {
        "torch_version": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "total": total,
        "free_at_start": free,
        "alloc_conf": (os.environ.get("PYTORCH_ALLOC_CONF")
                       or os.environ.get("PYTORCH_CUDA_ALLOC_CONF")),
    }
    streams = {}

    def stream(number):
        if number == 0:
            return torch.cuda.default_stream(0)
        if number not in streams:
            streams[number] = torch.cuda.Stream(0)
        return streams[number]

    if allowed_bytes:
        fraction = allowed_bytes / total
        torch.cuda.set_per_process_memory_fraction(fraction, 0)
        # c10: allowed_memory_maximum = static_cast<size_t>(fraction * device_total)
        info["allowed_bytes"] = int(fraction * float(total))

    live = {}
    last_oom = None
    with open(trace_path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            op = json.loads(line)
            kind = op["op"]
            if kind == "alloc":
                try:
                    with torch.cuda.stream(stream(op.get("stream", 0))):
                        live[op["id"]] = torch.empty(op["size"], dtype=torch.uint8, device="cuda")
                except torch.cuda.OutOfMemoryError as e:
                    last_oom = str(e)
            elif kind == "record_stream":
                if op["id"] in live:
                    s = stream(op["stream"])
                    with torch.cuda.stream(s):
                        torch.cuda._sleep(BUSY_CYCLES)
                    live[op["id"]].record_stream(s)
            elif kind == "synchronize":
                if "stream" in op:
                    stream(op["stream"]).synchronize()
                else:
                    torch.cuda.synchronize()
            elif kind == "set_memory_fraction":
                torch.cuda.set_per_process_memory_fraction(float(op["fraction"]), 0)
            elif kind == "free":
                # An id whose alloc ran out of memory has nothing to free, in both tools.
                live.pop(op["id"], None)
            elif kind == "empty_cache":
                torch.cuda.empty_cache()
            else:
                raise SystemExit(f"{trace_path}:{number}: unknown op {kind!r}")

    torch.cuda.synchronize()
    stats = dict(torch.cuda.memory_stats(0))

    largest = 0
    for segment in torch.cuda.memory_snapshot():
        for block in segment.get("blocks", []):
            if block.get("state") == "inactive":
                largest = max(largest, block["size"])
    stats["largest_free_block_bytes"] = largest
    stats["last_oom_message"] = last_oom

    print(json.dumps({"info": info, "stats": stats}))
    return 0


def run_torch(trace_path, alloc_conf, allowed_bytes):
    env = dict(os.environ)
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    env.pop("PYTORCH_ALLOC_CONF", None)
    if alloc_conf:
        env["PYTORCH_CUDA_ALLOC_CONF"] = alloc_conf
        env["PYTORCH_ALLOC_CONF"] = alloc_conf
    cmd = [sys.executable, os.path.abspath(__file__), "torch-worker", trace_path,
           "--allowed-bytes", str(allowed_bytes or 0)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        return None, f"torch worker failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}"
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1]), None
    except (ValueError, IndexError):
        return None, f"torch worker printed no JSON: {proc.stdout[-500:]} {proc.stderr[-1500:]}"


# --------------------------------------------------------------------------- lab side

def run_replay(gml, trace_path, backend, capacity, alloc_conf, fraction=None):
    cmd = [gml, "replay", trace_path, "--backend", backend]
    if capacity:
        cmd += ["--capacity", str(capacity)]
    if alloc_conf:
        cmd += ["--alloc-conf", alloc_conf]
    if fraction is not None:
        cmd += ["--memory-fraction", str(fraction)]
    env = dict(os.environ)
    # The real driver, not the fake of the unit tests.
    env.pop("GML_LIBCUDA", None)
    env.setdefault("LC_ALL", "C.UTF-8")
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    except OSError as e:
        return None, f"{' '.join(cmd)}: {e}"
    if proc.returncode != 0:
        return None, f"`{' '.join(cmd)}` exited {proc.returncode}: {proc.stderr.strip()[-1500:]}"
    try:
        return json.loads(proc.stdout), None
    except ValueError as e:
        return None, f"`{' '.join(cmd)}` printed no JSON object ({e}): {proc.stdout[:500]}"


# --------------------------------------------------------------------------- comparing

def oom_summary(message):
    if message is None:
        return None
    tried = TRIED_RE.search(message)
    allowed = ALLOWED_RE.search(message)
    parts = []
    if tried:
        parts.append("Tried to allocate " + tried.group(1))
    if allowed:
        parts.append(allowed.group(1) + " allowed")
    return "; ".join(parts) if parts else "(no 'Tried to allocate')"


def same(key, torch_value, lab_value):
    """None when the key cannot be compared, else True/False."""
    if key == "last_oom_message":
        # The rest of the text names the device's capacity and free memory, which a
        # simulated device of `allowed` bytes cannot share with the real GPU.
        # "X allowed;" appears only where the limit is a fraction or a budget, not on
        # a simulated device, so it is shown but not compared.
        def tried(message):
            match = TRIED_RE.search(message) if message else None
            return match.group(1) if match else message
        return tried(torch_value) == tried(lab_value)
    if torch_value is None or lab_value is None:
        return None
    return torch_value == lab_value


def show(key, value):
    if key == "last_oom_message":
        return "null" if value is None else oom_summary(value)
    if value is None:
        return "—"
    return str(value)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "torch-worker":
        p = argparse.ArgumentParser()
        p.add_argument("mode")
        p.add_argument("trace")
        p.add_argument("--allowed-bytes", type=int, default=0)
        a = p.parse_args()
        return torch_worker(a.trace, a.allowed_bytes)

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gml", help="the gpu-memory-lab executable (replay); omit to run torch only")
    p.add_argument("--traces", required=True, help="directory with traces.json and *.jsonl")
    p.add_argument("--results", required=True, help="Markdown file to append the tables to")
    p.add_argument("--json", help="also write every raw result here")
    p.add_argument("--no-cuda-backend", action="store_true",
                   help="do not also replay with --backend cuda")
    a = p.parse_args()

    with open(os.path.join(a.traces, "traces.json"), encoding="utf-8") as f:
        manifest = json.load(f)

    lines = ["## The allocator against torch.cuda.memory_stats()", ""]
    raw = []
    n_compared = n_differ = 0
    failed_to_run = False
    torch_info_done = False

    for entry in manifest["traces"]:
        trace = os.path.join(a.traces, entry["file"])
        conf = entry.get("alloc_conf")
        allowed = entry.get("allowed_bytes")

        torch_result, err = run_torch(trace, conf, allowed)
        title = f"### `{entry['file']}`"
        if conf:
            title += f" — `PYTORCH_ALLOC_CONF={conf}`"
        lines += [title, "", entry.get("what", ""), ""]
        if err:
            lines += [f"**torch could not run this trace:** {err}", ""]
            failed_to_run = True
            raw.append({"trace": entry["file"], "torch_error": err})
            continue

        info = torch_result["info"]
        tstats = torch_result["stats"]
        if not torch_info_done:
            lines[2:2] = [f"PyTorch {info['torch_version']} (CUDA {info['torch_cuda']}) on "
                          f"{info['device']}, {info['total']} bytes of device memory.", ""]
            torch_info_done = True

        # A sim device as large as the GPU, or exactly as large as torch allows.
        capacity = info.get("allowed_bytes") or info["total"]
        if allowed:
            lines += [f"torch: set_per_process_memory_fraction({allowed} / {info['total']}) "
                      f"→ {info['allowed_bytes']} bytes allowed; replay: sim of that capacity, "
                      f"--memory-fraction 1 (a limit, as garbage_collection_threshold needs).", ""]

        runs = []
        if a.gml:
            runs.append(("sim",) + run_replay(a.gml, trace, "sim", capacity, conf,
                                              1 if allowed else None))
            # The CUDA backend's budget (min 1 GiB, free/4) cannot be told to match
            # torch's fraction, so the OOM trace is compared on the simulator only.
            if not a.no_cuda_backend and not allowed:
                runs.append(("cuda",) + run_replay(a.gml, trace, "cuda", None, conf))

        header = "| key | torch |" + "".join(f" replay {name} |" for name, _, _ in runs)
        lines += [header, "|---|---|" + "---|" * len(runs)]
        for name, result, err in runs:
            if err:
                lines.insert(len(lines) - 2, f"**replay --backend {name} failed:** {err}\n")
                failed_to_run = True

        for key in KEYS:
            tv = tstats.get(key)
            cells = []
            for name, result, err in runs:
                if err or result is None:
                    cells.append("—")
                    continue
                lv = result.get(key)
                verdict = same(key, tv, lv)
                if key not in result:
                    cells.append("missing ✗")
                    n_compared += 1
                    n_differ += 1
                elif verdict is None:
                    cells.append(show(key, lv))
                elif verdict:
                    n_compared += 1
                    cells.append(show(key, lv) + " ✓")
                else:
                    n_compared += 1
                    n_differ += 1
                    cells.append(f"**{show(key, lv)}** ✗")
            lines.append(f"| `{key}` | {show(key, tv)} |" + "".join(f" {c} |" for c in cells))
        lines.append("")
        if tstats.get("last_oom_message"):
            lines += ["<details><summary>torch's out-of-memory message</summary>", "",
                      "```", tstats["last_oom_message"], "```", ""]
            for name, result, err in runs:
                if result and result.get("last_oom_message"):
                    lines += [f"replay {name}:", "", "```", result["last_oom_message"], "```", ""]
            lines += ["</details>", ""]

        raw.append({"trace": entry["file"], "alloc_conf": conf, "torch": torch_result,
                    "replay": {name: (result if not err else {"error": err})
                               for name, result, err in runs}})

    verdict = (f"**{n_compared - n_differ} of {n_compared} compared values agree**"
               + (f", {n_differ} differ (marked ✗)." if n_differ else "."))
    if not a.gml:
        verdict = "**replay was not built: torch's numbers only, nothing compared.**"
    lines += [verdict, "",
              "Keys torch does not report in this version show —; `last_oom_message` is "
              "compared by its \"Tried to allocate\" part only (\"allowed\" is shown).", ""]

    with open(a.results, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(raw, f, indent=2)

    if failed_to_run:
        return 2
    return 1 if n_differ else 0


if __name__ == "__main__":
    sys.exit(main())
