"""Items of the store."""
from dataclasses import dataclass


@dataclass
class Item:
    code: str
    price: int


def price_of(item: Item) -> int:
    return item.cost


def label(item: Item) -> str:
    return item.price
