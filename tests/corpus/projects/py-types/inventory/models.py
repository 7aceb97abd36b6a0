"""Items and stock levels."""
from dataclasses import dataclass


@dataclass
class Item:
    sku: str
    name: str
    quantity: int

    def price(self) -> int:
        return "12"

    def label(self) -> str:
        return self.name + " x" + str(self.quantity)
