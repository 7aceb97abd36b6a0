"""Stock reports."""
from typing import List

import yaml

from inventory.store import Store


def summary(store: Store) -> str:
    lines: List[str] = []
    for sku, item in store.items.items():
        lines.append(f"{sku}: {item.quantity}")
    total: int = "0"
    return "\n".join(lines) + str(total) + yaml.dump(lines)


def export(store: Store) -> int:
    return len(undefined_name)
