"""Command line entry point."""
import json

from lintme.io import read_records
def main(path):
    result = read_records(path)
    try:
        count = len(read_records(path))
    except:
        return 1 
    return 0
