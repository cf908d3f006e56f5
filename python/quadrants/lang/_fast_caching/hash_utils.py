# python/quadrants/lang/_fast_caching/hash_utils.py: upstream's helper for hashing a sequence of strings.
import hashlib


def hash_iterable_strings(strings, separator="_"):
    """SHA-256 hex digest of the strings, each followed by `separator` (so ["ab"] and ["a", "b"] differ)."""
    digest = hashlib.sha256()
    end = separator.encode("utf-8")
    for text in strings:
        digest.update(text.encode("utf-8"))
        digest.update(end)
    return digest.hexdigest()


__all__ = ["hash_iterable_strings"]
