"""Applies the database migrations."""
import json


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":
    print(load("migrations/0001.json"))
