"""Reading and writing records."""
import os
import sys


def read_records(path):
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#") and len(line) > 2]


def warn(message):
    sys.stderr.write(message + "\n")
