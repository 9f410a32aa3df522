"""training_result.py - what the training benches share: the provenance block
(from `solbook collect`, so GPU identity and SKU are the ones solbench
records), package versions, sample statistics (bench/scripts/torch_common.py,
computed as solbench computes them) and writing one solbook.training.v1 file
atomically (temporary file, fsync, rename)."""
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "bench", "scripts"))
from torch_common import stats_of  # noqa: E402  (one statistics routine for every script)

# Packages whose versions a training result records (provenance.software.packages).
PACKAGES = ("torch", "transformers", "liger-kernel", "triton")


def now_rfc3339():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


def package_versions():
    """Installed versions of PACKAGES; a package that is not installed is left
    out (never guessed)."""
    from importlib import metadata
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def find_solbook(given):
    """The solbook program: --solbook, $SOLBOOK, the carried build
    (.carry/bin, scripts/gpu_carry.sh), the build tree, then PATH."""
    if given:
        return given
    cands = [os.environ.get("SOLBOOK"), os.path.join(TOP, ".carry", "bin", "solbook"),
             os.path.join(TOP, "build", "cli", "solbook"), shutil.which("solbook")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


class ProvenanceError(Exception):
    pass


def collect_provenance(solbook, device_kind, device_index):
    """`solbook collect` for the CPU or for the GPU of NVML index device_index
    (the launcher sets CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA ordinals and NVML
    indices name the same cards)."""
    cmd = [solbook, "collect", "--git-dir", TOP]
    cmd += ["--cpu"] if device_kind == "cpu" else ["--device", str(device_index)]
    env = dict(os.environ)
    env.setdefault("SOLBOOK_HOME", TOP)
    # The carried build (scripts/gpu_carry.sh) brings the libraries a bare
    # GPU host lacks and states the commit it was built from: a .git on the
    # lent machine is not this tree's.
    carry = os.path.join(TOP, ".carry")
    if os.path.abspath(solbook).startswith(carry + os.sep):
        env["LD_LIBRARY_PATH"] = os.path.join(carry, "lib") + (
            os.pathsep + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        if "SOLBOOK_GIT_SHA" not in env and os.path.isfile(os.path.join(carry, "GIT_SHA")):
            with open(os.path.join(carry, "GIT_SHA")) as fh:
                env["SOLBOOK_GIT_SHA"] = fh.read().strip()
            if os.path.isfile(os.path.join(carry, "GIT_DIRTY")):
                with open(os.path.join(carry, "GIT_DIRTY")) as fh:
                    env["SOLBOOK_GIT_DIRTY"] = fh.read().strip()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise ProvenanceError("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        raise ProvenanceError("%s printed no JSON: %s" % (" ".join(cmd), e))


def finish_provenance(prov, tool_name, torch, started_at, device_kind):
    """The run's provenance: the collected block with this tool, the CUDA
    runtime torch was built with (unknown on the CPU path, where none ran),
    the package versions and the run's times."""
    p = json.loads(json.dumps(prov))
    p["tool"] = {"name": tool_name, "version": torch.__version__}
    sw = p.setdefault("software", {})
    sw["cuda_runtime_version"] = (torch.version.cuda or "unknown") if device_kind == "cuda" else "unknown"
    sw.setdefault("cublas_version", "unknown")
    sw.setdefault("driver_version", "unknown")
    sw["compiler"] = "python %s" % platform.python_version()
    sw["packages"] = package_versions()
    p["started_at"] = started_at
    p["finished_at"] = now_rfc3339()
    return p


def write_json_atomic(path, doc):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=d)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(doc, fh, indent=2, sort_keys=True, allow_nan=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def timing_block(samples_ms, warmup_steps, timer):
    return {"unit": "ms", "warmup_steps": warmup_steps, "timer": timer, "samples": list(samples_ms),
            "stats": stats_of(list(samples_ms), 1)}


def compare_losses(mine, theirs, steps, atol, rtol):
    """The loss gate: |mine[i] - theirs[i]| <= atol + rtol * |theirs[i]| for
    the first `steps` steps. Returns (passed, max_abs_diff, first_bad_step,
    reason)."""
    if len(mine) < steps or len(theirs) < steps:
        return False, None, None, "fewer than %d recorded losses (this run %d, the other %d)" % (
            steps, len(mine), len(theirs))
    worst = 0.0
    for i in range(steps):
        a, b = mine[i], theirs[i]
        if a is None or b is None:
            return False, None, i, "step %d has no finite loss" % i
        diff = abs(a - b)
        worst = max(worst, diff)
        if diff > atol + rtol * abs(b):
            return False, worst, i, "step %d: loss %.6f against %.6f (|diff| %.3g > %.3g + %.3g x %.6f)" % (
                i, a, b, diff, atol, rtol, abs(b))
    return True, worst, None, None
