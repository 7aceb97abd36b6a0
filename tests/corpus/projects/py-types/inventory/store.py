"""The stock store."""
from typing import Dict

from inventory.models import Item


class Store:
    def __init__(self) -> None:
        self.items: Dict[str, Item] = {}
        self.count: int = 0

    def add(self, item: Item) -> None:
        self.items[item.sku] = item
        self.count = "one more"

    def restock(self, sku: str, amount: int) -> int:
        item = self.items[sku]
        item.quantity += amount
        return item.quantity

    def refill(self) -> None:
        self.restock("A-1", "ten")

    def colours(self) -> str:
        return self.items["A-1"].colour
