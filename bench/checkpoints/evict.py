#!/usr/bin/python3
"""Evicts files' clean pages from the page cache (posix_fadvise DONTNEED after fsync), for a
cold-cache measurement where dropping all caches is not allowed. Whether it worked is not
checked here: the read_bytes of the next measured run shows whether the disk was read.

    evict.py FILE...
"""
import os
import sys

for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
