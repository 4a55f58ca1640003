"""llama-cpp-python's OpenAI-compatible server, its prompt-state cache counted
by what it holds (run by local-model.sh; arguments are the server's own).

With `--cache True` the server keeps the states of earlier prompts and starts a
new one from the state sharing its longest prefix: one state per agent, so an
agent's next prompt is read only from where its last one ended. But version
0.3.36 counts a state by its KV part alone (~30-60 MB here) while each also
holds a copy of the logits buffer (n_batch x vocabulary floats: 311 MB for
Qwen2.5), so `--cache_size 2147483648` grew past 23 GB and was killed for want
of memory. Counting both makes `--cache_size` mean what it says.
"""
import sys

import llama_cpp.llama_cache as cache


def _held(self):
    return sum(s.llama_state_size + s.scores.nbytes + s.input_ids.nbytes for s in self.cache_state.values())


cache.LlamaRAMCache.cache_size = property(_held)

_set = cache.LlamaRAMCache.__setitem__


def _told(self, key, value):
    """Each state kept, and what the cache holds after it (the server's log)."""
    _set(self, key, value)
    held = [len(k) for k in self.cache_state]
    print(f"prompt cache: kept {len(key)} tokens; holds {len(held)} states {held}, "
          f"{self.cache_size / 2**20:.0f} MiB", file=sys.stderr, flush=True)


cache.LlamaRAMCache.__setitem__ = _told

from llama_cpp.server.__main__ import main  # noqa: E402

main()
